/*
 * bench/accuracy/OracleJava.java: javac (the JDK's compiler, through its
 * com.sun.source Trees API) as the oracle of the accuracy bench.
 *
 *   java bench/accuracy/OracleJava.java ROOT [CLASSPATH] < FILES > oracle.tsv
 *
 * FILES lists the .java files to compile, one a line, relative to ROOT.
 * javac parses and attributes them together (no class files are written)
 * and every method call, constructor call (new T(), this(), super()) is
 * written as one line in the format bench/accuracy/score.py reads:
 *
 *   a method or constructor declared in FILES, which no method declared
 *     in FILES overrides                                       in
 *   a method declared in FILES that is abstract, or that a method
 *     declared in FILES overrides (chosen at run time)         virt
 *   a method declared elsewhere (the JDK, a jar of CLASSPATH),
 *     even when the receiver's class is declared in FILES      ext
 *
 * A last column gives the places of the method or constructor the call
 * is written in (with its first overload's), for score.py to tell calls
 * between overloads, which kbx keeps as one node, from other misses.
 *
 * A declaration is found by its tree: its place is the line where the
 * declaration starts (annotations included, as kbx counts it) and the
 * line of its name.  A construction also accepts the class's lines: kbx
 * sends `new T()` to the class.
 */
import com.sun.source.tree.*;
import com.sun.source.util.*;

import javax.lang.model.element.*;
import javax.lang.model.type.*;
import javax.lang.model.util.*;
import javax.tools.*;

import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

public class OracleJava {
    static Trees trees;
    static Elements elements;
    static Types types;
    static Path root;
    static PrintWriter out;
    static final Set<ExecutableElement> overridden = new HashSet<>();

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: java OracleJava.java ROOT [CLASSPATH] < FILES");
            System.exit(2);
        }
        root = Paths.get(args[0]).toAbsolutePath().normalize();
        List<File> files = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String l; (l = in.readLine()) != null; )
            if (!l.isBlank())
                files.add(root.resolve(l.strip()).toFile());

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8);
        List<String> opts = new ArrayList<>(List.of("-proc:none", "-nowarn", "-Xlint:none",
                "-encoding", "UTF-8", "-Xmaxerrs", "100000"));
        if (args.length > 1 && !args[1].isEmpty())
            opts.addAll(List.of("-classpath", args[1]));
        int[] nerr = {0};
        DiagnosticListener<JavaFileObject> diag = d -> {
            if (d.getKind() == Diagnostic.Kind.ERROR && nerr[0]++ < 10)
                System.err.println("oracle-java: " + d);
        };
        JavacTask task = (JavacTask) javac.getTask(null, fm, diag, opts, null,
                fm.getJavaFileObjectsFromFiles(files));
        List<CompilationUnitTree> units = new ArrayList<>();
        task.parse().forEach(units::add);
        task.analyze();
        trees = Trees.instance(task);
        elements = task.getElements();
        types = task.getTypes();
        if (nerr[0] > 0)
            System.err.println("oracle-java: " + nerr[0] + " compile errors (calls that do not attribute are left out)");

        // which methods of FILES some method of FILES overrides
        List<TypeElement> declared = new ArrayList<>();
        for (CompilationUnitTree cu : units)
            new TreePathScanner<Void, Void>() {
                @Override
                public Void visitClass(ClassTree t, Void v) {
                    Element e = trees.getElement(getCurrentPath());
                    if (e instanceof TypeElement)
                        declared.add((TypeElement) e);
                    return super.visitClass(t, v);
                }
            }.scan(cu, null);
        for (TypeElement t : declared)
            for (Element m : t.getEnclosedElements())
                if (m.getKind() == ElementKind.METHOD)
                    markOverridden((ExecutableElement) m, t, t.asType(), new HashSet<>());

        out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)));
        for (CompilationUnitTree cu : units)
            new Calls(cu).scan(cu, null);
        out.flush();
        if (out.checkError()) {
            System.err.println("oracle-java: cannot write the output");
            System.exit(2);
        }
    }

    /* m of type t overrides a method of one of t's supertypes (walked from
     * type): mark that method, in every supertype it is found in */
    static void markOverridden(ExecutableElement m, TypeElement t, TypeMirror type, Set<String> seen) {
        for (TypeMirror s : types.directSupertypes(type)) {
            Element se = types.asElement(s);
            if (!(se instanceof TypeElement) || !seen.add(((TypeElement) se).getQualifiedName().toString()))
                continue;
            for (Element o : se.getEnclosedElements())
                if (o.getKind() == ElementKind.METHOD && o.getSimpleName().equals(m.getSimpleName())
                        && elements.overrides(m, (ExecutableElement) o, t))
                    overridden.add((ExecutableElement) o);
            markOverridden(m, t, s, seen);
        }
    }

    static class Calls extends TreePathScanner<Void, Void> {
        final CompilationUnitTree cu;
        final String file;
        final LineMap lines;
        final String text;
        final SourcePositions pos;

        Calls(CompilationUnitTree cu) throws IOException {
            this.cu = cu;
            this.file = root.relativize(Paths.get(cu.getSourceFile().toUri())).toString();
            this.lines = cu.getLineMap();
            this.text = cu.getSourceFile().getCharContent(true).toString();
            this.pos = trees.getSourcePositions();
        }

        @Override
        public Void visitMethodInvocation(MethodInvocationTree t, Void v) {
            ExpressionTree sel = t.getMethodSelect();
            String name;
            long npos;
            if (sel instanceof MemberSelectTree) {
                name = ((MemberSelectTree) sel).getIdentifier().toString();
                npos = pos.getEndPosition(cu, sel) - name.length();
            } else {
                name = sel.toString();
                npos = pos.getStartPosition(cu, sel);
            }
            Element e = trees.getElement(getCurrentPath());
            if (e instanceof ExecutableElement)
                emit(t, npos, name, (ExecutableElement) e, null);
            return super.visitMethodInvocation(t, v);
        }

        @Override
        public Void visitNewClass(NewClassTree t, Void v) {
            Tree id = t.getIdentifier();
            while (id instanceof ParameterizedTypeTree)
                id = ((ParameterizedTypeTree) id).getType();
            while (id instanceof AnnotatedTypeTree)
                id = ((AnnotatedTypeTree) id).getUnderlyingType();
            String name = id instanceof MemberSelectTree ? ((MemberSelectTree) id).getIdentifier().toString()
                    : id.toString();
            long npos = pos.getEndPosition(cu, id) - name.length();
            Element cls = trees.getElement(new TreePath(getCurrentPath(), id));
            Element e = trees.getElement(getCurrentPath());
            // an anonymous class: what is constructed is the named type
            if (t.getClassBody() != null)
                e = null;
            emit(t, npos, name, e instanceof ExecutableElement ? (ExecutableElement) e : null,
                    cls instanceof TypeElement ? (TypeElement) cls : null);
            return super.visitNewClass(t, v);
        }

        /* line and byte column (1-based) of a character offset */
        String place(long p) {
            long line = lines.getLineNumber(p);
            int start = (int) lines.getStartPosition(line);
            int col = text.substring(start, (int) p).getBytes(StandardCharsets.UTF_8).length + 1;
            return line + "\t" + col;
        }

        void emit(Tree call, long npos, String name, ExecutableElement m, TypeElement cls) {
            // javac's implicit super() calls have no text of their own
            if (npos < 0 || !text.startsWith(name, (int) npos))
                return;
            String kind;
            List<String> targets = new ArrayList<>();
            String what;
            if (m != null) {
                what = ((TypeElement) m.getEnclosingElement()).getQualifiedName() + "." + m.getSimpleName();
                addPlaces(targets, m);
                if (!targets.isEmpty())
                    addPlaces(targets, firstOverload(m));
                if (m.getKind() == ElementKind.CONSTRUCTOR)
                    addPlaces(targets, m.getEnclosingElement());
            } else if (cls != null) {
                what = cls.getQualifiedName() + " (anonymous subclass)";
                addPlaces(targets, cls);
            } else {
                return;
            }
            if (targets.isEmpty()) {
                kind = "ext";
            } else if (m != null && m.getKind() == ElementKind.METHOD
                    && (m.getModifiers().contains(Modifier.ABSTRACT) || overridden.contains(m))) {
                kind = "virt";
            } else {
                kind = "in";
            }
            // the method or constructor the call is written in
            List<String> caller = new ArrayList<>();
            for (TreePath p = getCurrentPath(); p != null; p = p.getParentPath())
                if (p.getLeaf() instanceof MethodTree) {
                    Element ce = trees.getElement(p);
                    if (ce instanceof ExecutableElement) {
                        addPlaces(caller, ce);
                        addPlaces(caller, firstOverload((ExecutableElement) ce));
                    }
                    break;
                } else if (p.getLeaf() instanceof ClassTree || p.getLeaf() instanceof LambdaExpressionTree) {
                    break;
                }
            out.print(file + "\t" + place(pos.getStartPosition(cu, call)) + "\t" + place(npos) + "\t"
                    + name + "\t" + kind + "\t" + (targets.isEmpty() ? "-" : String.join(",", targets))
                    + "\t" + what + "\t" + (caller.isEmpty() ? "-" : String.join(",", caller)) + "\n");
        }
    }

    /* kbx keeps one node for the overloads of a name in a class (one
     * canonical id), at the first of them: that node stands for each */
    static Element firstOverload(ExecutableElement m) {
        Element best = m;
        long bestPos = Long.MAX_VALUE;
        for (Element o : m.getEnclosingElement().getEnclosedElements()) {
            if (o.getKind() != m.getKind() || !o.getSimpleName().equals(m.getSimpleName()))
                continue;
            TreePath p = trees.getPath(o);
            if (p == null)
                continue;
            long q = trees.getSourcePositions().getStartPosition(p.getCompilationUnit(), p.getLeaf());
            if (q >= 0 && q < bestPos) {
                bestPos = q;
                best = o;
            }
        }
        return best;
    }

    /* the places of a declaration compiled from FILES: where it starts and
     * where its name is; nothing for a declaration from elsewhere */
    static void addPlaces(List<String> targets, Element e) {
        TreePath p = trees.getPath(e);
        if (p == null)
            return;
        CompilationUnitTree cu = p.getCompilationUnit();
        Path f = Paths.get(cu.getSourceFile().toUri());
        if (!f.startsWith(root))
            return;
        String rel = root.relativize(f).toString();
        LineMap lm = cu.getLineMap();
        SourcePositions sp = trees.getSourcePositions();
        long start = sp.getStartPosition(cu, p.getLeaf());
        long name = ((com.sun.tools.javac.tree.JCTree) p.getLeaf()).pos;
        for (long q : new long[] { start, name }) {
            if (q < 0)
                continue;
            String s = rel + ":" + lm.getLineNumber(q);
            if (!targets.contains(s))
                targets.add(s);
        }
    }
}
