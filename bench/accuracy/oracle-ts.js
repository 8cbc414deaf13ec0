// bench/accuracy/oracle-ts.js: the TypeScript compiler's checker as the
// oracle of the accuracy bench.
//
//   NODE_PATH=DIR/node_modules node oracle-ts.js ROOT > oracle.tsv
//
// Compiles every .ts and .tsx file under ROOT as one program (no emit;
// imports of "NAME" and "NAME/*" where NAME is ROOT's package are mapped
// to ROOT, as a package's own tsconfig does with paths) and writes every
// call f(), x.f(), new C(), super() as one line in the format
// bench/accuracy/score.py reads.  What the checker says:
//
//   a function, method or class declared under ROOT, no method
//     declared under ROOT overriding it                        in
//   a method of an interface or type declared under ROOT, an
//     abstract method, or a class method a subclass under ROOT
//     overrides (chosen at run time)                           virt
//   declared elsewhere (the lib.*.d.ts of the language, a
//     dependency's types)                                      ext
//   a variable, parameter or property holding a function       dyn
//
// A name whose declarations are several (overloads, a function merged
// with a namespace) lists the places of all of them; a construction also
// accepts the class's constructor.
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require("typescript");

function main() {
  if (process.argv.length < 3) {
    process.stderr.write("usage: node oracle-ts.js ROOT [PACKAGE-NAME]\n");
    process.exit(2);
  }
  const root = path.resolve(process.argv[2]);
  const pkg = process.argv[3];
  const files = [];
  (function walk(d) {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith(".") || e.name === "node_modules") continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name) && !/\.d\.ts$/.test(e.name)) files.push(p);
    }
  })(root);
  const options = {
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    lib: ["lib.es2020.d.ts", "lib.dom.d.ts"],
    jsx: ts.JsxEmit.React,
    noEmit: true,
    skipLibCheck: true,
    strict: false,
    baseUrl: root,
    paths: pkg ? { [pkg]: ["./"], [pkg + "/*"]: ["./*"] } : undefined,
  };
  const program = ts.createProgram(files, options);
  const checker = program.getTypeChecker();
  const nerr = ts.getPreEmitDiagnostics(program).filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  if (nerr) process.stderr.write(`oracle-ts: ${nerr} type errors (their calls are still bound where the checker can)\n`);

  const inRoot = (sf) => !path.relative(root, sf.fileName).startsWith("..") && !sf.isDeclarationFile;

  // the class methods that a subclass under ROOT overrides
  const overridden = new Set();
  for (const sf of program.getSourceFiles()) {
    if (!inRoot(sf)) continue;
    (function visit(n) {
      if (ts.isClassLike(n) && n.name) {
        const t = checker.getTypeAtLocation(n);
        const bases = t.isClassOrInterface() ? checker.getBaseTypes(t) : [];
        for (const m of n.members) {
          if (!ts.isMethodDeclaration(m) || !m.name) continue;
          const nm = m.name.getText(sf);
          const seen = new Set();
          const todo = bases.slice();
          while (todo.length) {
            const b = todo.shift();
            if (seen.has(b)) continue;
            seen.add(b);
            const p = b.getProperty(nm);
            for (const d of (p && p.declarations) || []) overridden.add(d);
            if (b.isClassOrInterface()) todo.push(...checker.getBaseTypes(b));
          }
        }
      }
      ts.forEachChild(n, visit);
    })(sf);
  }

  const out = [];
  const place = (sf, pos) => {
    const lc = sf.getLineAndCharacterOfPosition(pos);
    const lineStart = sf.getPositionOfLineAndCharacter(lc.line, 0);
    return [lc.line + 1, Buffer.byteLength(sf.text.slice(lineStart, pos), "utf8") + 1];
  };
  const declPlaces = (decls) => {
    const ps = [];
    for (const d of decls) {
      const sf = d.getSourceFile();
      if (!inRoot(sf)) return null;
      const rel = path.relative(root, sf.fileName);
      for (const pos of [d.getStart(sf), d.name ? d.name.getStart(sf) : d.getStart(sf)]) {
        const s = `${rel}:${place(sf, pos)[0]}`;
        if (!ps.includes(s)) ps.push(s);
      }
    }
    return ps;
  };
  const isFunctionLike = (d) =>
    ts.isFunctionDeclaration(d) || ts.isMethodDeclaration(d) || ts.isClassLike(d) || ts.isConstructorDeclaration(d) ||
    ts.isMethodSignature(d) || ts.isModuleDeclaration(d) ||
    (ts.isVariableDeclaration(d) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer)));

  for (const sf of program.getSourceFiles()) {
    if (!inRoot(sf)) continue;
    const rel = path.relative(root, sf.fileName);
    (function visit(n) {
      if (ts.isCallExpression(n) || ts.isNewExpression(n)) call(sf, rel, n);
      ts.forEachChild(n, visit);
    })(sf);
  }

  function call(sf, rel, n) {
    let e = n.expression;
    while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
    let nameNode;
    if (ts.isIdentifier(e)) nameNode = e;
    else if (ts.isPropertyAccessExpression(e)) nameNode = e.name;
    else if (e.kind === ts.SyntaxKind.SuperKeyword) nameNode = e;
    else if (ts.isExpressionWithTypeArguments && ts.isExpressionWithTypeArguments(e)) nameNode = e.expression;
    else return;
    if (ts.isPrivateIdentifier(nameNode)) return;
    const name = nameNode.kind === ts.SyntaxKind.SuperKeyword ? "super" : nameNode.text;
    const start = place(sf, n.getStart(sf));
    const at = place(sf, nameNode.getStart(sf));
    const site = `${rel}\t${start[0]}\t${start[1]}\t${at[0]}\t${at[1]}\t${name}`;
    let sym;
    let decls;
    if (name === "super") {
      const sig = checker.getResolvedSignature(n);
      const d = sig && sig.declaration;
      if (!d) return;
      decls = [d.parent && ts.isClassLike(d.parent) ? d.parent : d];
      if (ts.isConstructorDeclaration(d)) decls.push(d);
      sym = d.parent && d.parent.symbol;
    } else {
      sym = checker.getSymbolAtLocation(nameNode);
      if (!sym) return;
      if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      decls = sym.declarations || [];
    }
    if (!decls.length) return;
    const what = sym ? checker.getFullyQualifiedName(sym).replace(/"[^"]*"\./, "") : name;
    if (!decls.some(isFunctionLike)) {
      const places = declPlaces(decls);
      out.push(`${site}\t${places ? "dyn" : "ext"}\t-\t${what}`);
      return;
    }
    const places = declPlaces(decls);
    if (!places) {
      out.push(`${site}\text\t-\t${what}`);
      return;
    }
    if (ts.isNewExpression(n))
      for (const d of decls)
        if (ts.isClassLike(d))
          for (const m of d.members)
            if (ts.isConstructorDeclaration(m)) places.push(...declPlaces([m]).filter((p) => !places.includes(p)));
    const virt = decls.some(
      (d) =>
        ts.isMethodSignature(d) ||
        (ts.isMethodDeclaration(d) &&
          (overridden.has(d) || (ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Abstract) !== 0))
    );
    out.push(`${site}\t${virt ? "virt" : "in"}\t${places.join(",")}\t${what}`);
  }
  process.stdout.write(out.map((l) => l + "\n").join(""));
}

main();
