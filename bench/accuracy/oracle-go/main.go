// bench/accuracy/oracle-go: the Go compiler's front end (go/types) as the
// oracle of the accuracy bench.
//
//	oracle-go ROOT MODULE-PATH > oracle.tsv
//
// Type-checks every package under ROOT (whose import path is MODULE-PATH
// plus the directory), its in-package tests with it and its external
// tests (package x_test) on their own, and writes one line per call site
// in the format bench/accuracy/score.py reads.  Imports outside the module
// come from the standard library or GOPATH (Debian's golang-*-dev
// packages, /usr/share/gocode) through go/importer's "source" importer,
// so nothing is fetched.  Build with GO111MODULE=off.
//
// What the type checker says about each call f(...) or x.f(...):
//
//	a function or a concrete method declared under ROOT   in
//	a method of an interface declared under ROOT (a call
//	  whose target is chosen at run time, or a method of a
//	  type parameter's constraint)                          virt
//	a function or method declared elsewhere, a builtin,
//	  or a method of the predeclared error interface        ext
//	a variable, parameter or field of function type        dyn
//	a conversion (T(x)) or a function literal called in place: not a call
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type oracle struct {
	root, module string
	fset         *token.FileSet
	std          types.ImporterFrom
	pkgs         map[string]*types.Package // the module's packages, without tests
	out          *bufio.Writer
	seen         map[string]bool // call sites already written (a file checked twice)
}

func (o *oracle) Import(path string) (*types.Package, error) {
	return o.ImportFrom(path, o.root, 0)
}

// ImportFrom loads the module's own packages from ROOT, and everything
// else through the source importer.
func (o *oracle) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if path == o.module || strings.HasPrefix(path, o.module+"/") {
		if p, ok := o.pkgs[path]; ok {
			return p, nil
		}
		d := filepath.Join(o.root, strings.TrimPrefix(strings.TrimPrefix(path, o.module), "/"))
		bp, err := build.ImportDir(d, 0)
		if err != nil {
			return nil, err
		}
		files, err := o.parse(d, bp.GoFiles)
		if err != nil {
			return nil, err
		}
		conf := types.Config{Importer: o, Error: func(error) {}}
		p, _ := conf.Check(path, o.fset, files, nil)
		o.pkgs[path] = p
		return p, nil
	}
	return o.std.ImportFrom(path, dir, mode)
}

func (o *oracle) parse(dir string, names []string) ([]*ast.File, error) {
	var files []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(o.fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// inRoot: the position's file relative to ROOT, or "" when outside it.
func (o *oracle) inRoot(p token.Pos) (string, int) {
	if !p.IsValid() {
		return "", 0
	}
	pos := o.fset.Position(p)
	rel, err := filepath.Rel(o.root, pos.Filename)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", 0
	}
	return rel, pos.Line
}

// check type-checks one package made of the named files of dir and
// writes its call sites.
func (o *oracle) check(path, dir string, names []string) {
	if len(names) == 0 {
		return
	}
	files, err := o.parse(dir, names)
	if err != nil {
		fmt.Fprintf(os.Stderr, "oracle-go: %v\n", err)
		return
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	nerr := 0
	conf := types.Config{Importer: o, Error: func(e error) {
		if nerr < 5 {
			fmt.Fprintf(os.Stderr, "oracle-go: %s: %v\n", path, e)
		}
		nerr++
	}}
	conf.Check(path, o.fset, files, info)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				o.call(c, info)
			}
			return true
		})
	}
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

func (o *oracle) call(c *ast.CallExpr, info *types.Info) {
	fun := unparen(c.Fun)
	// f[T](x): an explicit instantiation
	switch ix := fun.(type) {
	case *ast.IndexExpr:
		if tv, ok := info.Types[ix.X]; ok && isFunc(tv) {
			fun = unparen(ix.X)
		}
	case *ast.IndexListExpr:
		fun = unparen(ix.X)
	}
	if tv, ok := info.Types[fun]; ok && tv.IsType() {
		return // a conversion
	}
	var name *ast.Ident
	var obj types.Object
	iface := false
	switch f := fun.(type) {
	case *ast.Ident:
		name, obj = f, info.Uses[f]
	case *ast.SelectorExpr:
		name = f.Sel
		if sel, ok := info.Selections[f]; ok {
			obj = sel.Obj()
			if sel.Kind() != types.FieldVal {
				_, iface = sel.Recv().Underlying().(*types.Interface)
			}
		} else {
			obj = info.Uses[f.Sel] // pkg.F
		}
	case *ast.FuncLit:
		return
	default:
		o.emit(c, nil, "", "dyn", "-", "(call of an expression)")
		return
	}
	if obj == nil {
		return // did not type-check
	}
	switch ob := obj.(type) {
	case *types.Builtin:
		o.emit(c, name, name.Name, "ext", "-", "builtin "+ob.Name())
	case *types.Var:
		o.emit(c, name, name.Name, "dyn", "-", "variable "+ob.Name())
	case *types.Func:
		file, line := o.inRoot(ob.Pos())
		what := ob.FullName()
		if file == "" {
			o.emit(c, name, name.Name, "ext", "-", what)
			return
		}
		// a method of an interface declared in ROOT: chosen at run time
		if recv := ob.Type().(*types.Signature).Recv(); recv != nil {
			if _, ok := recv.Type().Underlying().(*types.Interface); ok {
				iface = true
			}
		}
		kind := "in"
		if iface {
			kind = "virt"
		}
		o.emit(c, name, name.Name, kind, fmt.Sprintf("%s:%d", file, line), what)
	}
}

func isFunc(tv types.TypeAndValue) bool {
	_, ok := tv.Type.Underlying().(*types.Signature)
	return ok && !tv.IsType()
}

func (o *oracle) emit(c *ast.CallExpr, name *ast.Ident, nm, kind, targets, what string) {
	file, _ := o.inRoot(c.Pos())
	if file == "" {
		return
	}
	s := o.fset.Position(c.Pos())
	n := s
	if name != nil {
		n = o.fset.Position(name.Pos())
	}
	if nm == "" {
		nm = "-"
	}
	key := fmt.Sprintf("%s:%d:%d:%d:%d", file, s.Line, s.Column, n.Line, n.Column)
	if o.seen[key] {
		return
	}
	o.seen[key] = true
	fmt.Fprintf(o.out, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n",
		file, s.Line, s.Column, n.Line, n.Column, nm, kind, targets, what)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: oracle-go ROOT MODULE-PATH")
		os.Exit(2)
	}
	root, err := filepath.Abs(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle-go:", err)
		os.Exit(2)
	}
	fset := token.NewFileSet()
	o := &oracle{
		root: root, module: os.Args[2], fset: fset,
		std:  importer.ForCompiler(fset, "source", nil).(types.ImporterFrom),
		pkgs: map[string]*types.Package{},
		out:  bufio.NewWriter(os.Stdout),
		seen: map[string]bool{},
	}
	var dirs []string
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			b := fi.Name()
			if p != root && (strings.HasPrefix(b, ".") || strings.HasPrefix(b, "_") || b == "testdata" || b == "vendor") {
				return filepath.SkipDir
			}
			dirs = append(dirs, p)
		}
		return nil
	})
	sort.Strings(dirs)
	for _, d := range dirs {
		bp, err := build.ImportDir(d, 0)
		if err != nil {
			continue // no Go files here
		}
		rel, _ := filepath.Rel(root, d)
		path := o.module
		if rel != "." {
			path += "/" + filepath.ToSlash(rel)
		}
		o.check(path, d, append(append([]string{}, bp.GoFiles...), bp.TestGoFiles...))
		o.check(path+"_test", d, bp.XTestGoFiles)
	}
	if err := o.out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "oracle-go: write:", err)
		os.Exit(2)
	}
}
