/*
 * OracleKotlin.kt: kotlinc (Kotlin 1.3's K1 front end: KotlinCoreEnvironment,
 * TopDownAnalyzerFacadeForJVM and its BindingContext) as a call-graph oracle
 * in the format bench/accuracy/score.py reads.
 *
^ *   java -cp OUT:kotlin-compiler.jar:... OracleKotlinKt ROOT CLASSPATH [-common PREFIX]... [KOTLINC-FLAGS...] < FILES > oracle.tsv
 *
 * FILES lists the .kt files to analyse, one a line, relative to ROOT; files
 * whose relative path starts with a -common PREFIX are the common sources of
 * a multiplatform module (as kotlinc's -Xcommon-sources).  CLASSPATH is a
 * colon-separated list of jars (the Kotlin stdlib is added).  KOTLINC-FLAGS
 * are the -X flags of kotlinc that bear on analysis (-Xmulti-platform,
 * -Xuse-experimental=...).  Nothing is generated: the analysis stops after
 * the front end.  One line per call site:
 *
 *   file line col nline ncol name kind targets what caller
 *
 *   in    a function or constructor declared in FILES that no declaration
 *         of FILES overrides (an `expect` declaration counts with its
 *         `actual` one: both are listed as targets)
 *   virt  a function declared in FILES that is abstract, or that a function
 *         of FILES overrides
 *   ext   declared elsewhere (stdlib, JDK, jars), or synthesized by the
 *         compiler (a data class's copy, an enum's values())
 *   dyn   invoke of a value of function type (f(x), f.invoke(x), with f of
 *         type (A) -> B)
 *
 * Listed: calls with an argument list or a trailing lambda (f(x), a.f(),
 * Foo(), a.f { }), infix calls of named functions (a to b), and supertype
 * constructor calls written in a class header (class A : B(x)).  Not listed:
 * operator calls (a + b, a[i], ++, for-loop iterator), property reads,
 * delegation calls this(...)/super(...) of secondary constructors, calls the
 * compiler writes (delegated properties, destructuring).
 */
import com.intellij.openapi.util.Disposer
import com.intellij.psi.PsiComment
import com.intellij.psi.PsiElement
import com.intellij.psi.PsiNameIdentifierOwner
import com.intellij.psi.PsiWhiteSpace
import org.jetbrains.kotlin.builtins.functions.FunctionClassDescriptor
import org.jetbrains.kotlin.cli.common.CLIConfigurationKeys
import org.jetbrains.kotlin.cli.common.arguments.K2JVMCompilerArguments
import org.jetbrains.kotlin.cli.common.arguments.parseCommandLineArguments
import org.jetbrains.kotlin.cli.common.config.addKotlinSourceRoot
import org.jetbrains.kotlin.cli.common.messages.CompilerMessageLocation
import org.jetbrains.kotlin.cli.common.messages.CompilerMessageSeverity
import org.jetbrains.kotlin.cli.common.messages.MessageCollector
import org.jetbrains.kotlin.cli.jvm.compiler.EnvironmentConfigFiles
import org.jetbrains.kotlin.cli.jvm.compiler.KotlinCoreEnvironment
import org.jetbrains.kotlin.cli.jvm.compiler.NoScopeRecordCliBindingTrace
import org.jetbrains.kotlin.cli.jvm.compiler.TopDownAnalyzerFacadeForJVM
import org.jetbrains.kotlin.cli.jvm.config.addJvmClasspathRoots
import org.jetbrains.kotlin.config.CommonConfigurationKeys
import org.jetbrains.kotlin.config.CompilerConfiguration
import org.jetbrains.kotlin.config.JVMConfigurationKeys
import org.jetbrains.kotlin.config.languageVersionSettings
import org.jetbrains.kotlin.descriptors.*
import org.jetbrains.kotlin.descriptors.impl.TypeAliasConstructorDescriptor
import org.jetbrains.kotlin.lexer.KtTokens
import org.jetbrains.kotlin.psi.*
import org.jetbrains.kotlin.resolve.BindingContext
import org.jetbrains.kotlin.resolve.DescriptorToSourceUtils
import org.jetbrains.kotlin.resolve.DescriptorUtils
import org.jetbrains.kotlin.resolve.OverridingUtil
import org.jetbrains.kotlin.resolve.calls.callUtil.getResolvedCall
import org.jetbrains.kotlin.resolve.calls.model.ResolvedCall
import org.jetbrains.kotlin.resolve.calls.model.VariableAsFunctionResolvedCall
import org.jetbrains.kotlin.resolve.multiplatform.ExpectedActualResolver
import org.jetbrains.kotlin.load.java.sam.SamConstructorDescriptor
import org.jetbrains.kotlin.resolve.calls.util.FakeCallableDescriptorForObject
import java.io.File
import java.io.PrintWriter

lateinit var root: File
lateinit var bc: BindingContext
lateinit var module: ModuleDescriptor
val relOf = HashMap<String, String>()          // canonical path -> relative path
val overridden = HashSet<DeclarationDescriptor>() // project declarations some project declaration overrides
val lineStarts = HashMap<String, IntArray>()
var nerr = 0

fun main(args: Array<String>) {
    if (args.size < 2) {
        System.err.println("usage: OracleKotlin ROOT CLASSPATH [-common PREFIX]... [KOTLINC-FLAGS...] < FILES")
        System.exit(2)
    }
    root = File(args[0]).canonicalFile
    val commons = ArrayList<String>()
    val flags = ArrayList<String>()
    var i = 2
    while (i < args.size) {
        if (args[i] == "-common" && i + 1 < args.size) { commons += args[i + 1]; i += 2 } else { flags += args[i]; i++ }
    }
    val rel = generateSequence(::readLine).map { it.trim() }.filter { it.isNotEmpty() }.toList()

    val collector = object : MessageCollector {
        override fun clear() {}
        override fun hasErrors() = nerr > 0
        override fun report(severity: CompilerMessageSeverity, message: String, location: CompilerMessageLocation?) {
            if (severity.isError) {
                if (nerr++ < 10) System.err.println("oracle-kotlin: ${location?.path}:${location?.line}: $message")
            }
        }
    }
    val conf = CompilerConfiguration()
    conf.put(CLIConfigurationKeys.MESSAGE_COLLECTOR_KEY, collector)
    conf.put(CommonConfigurationKeys.MODULE_NAME, "oracle")
    conf.put(JVMConfigurationKeys.JDK_HOME, File(System.getProperty("java.home")))
    val kargs = K2JVMCompilerArguments()
    parseCommandLineArguments(flags, kargs)
    conf.languageVersionSettings = kargs.toLanguageVersionSettings(collector)
    val kotlinLib = System.getProperty("kotlin.lib") ?: "/usr/share/kotlin/kotlinc/lib"
    val cp = args[1].split(':').filter { it.isNotEmpty() }.map { File(it) } +
        listOf("kotlin-stdlib.jar", "kotlin-stdlib-jdk7.jar", "kotlin-stdlib-jdk8.jar").map { File(kotlinLib, it) }.filter { it.exists() }
    conf.addJvmClasspathRoots(cp)
    for (r in rel) {
        val f = File(root, r).canonicalFile
        relOf[f.path] = r
        conf.addKotlinSourceRoot(f.path, commons.any { r.startsWith(it) })
    }

    val disposable = Disposer.newDisposable()
    val env = KotlinCoreEnvironment.createForProduction(disposable, conf, EnvironmentConfigFiles.JVM_CONFIG_FILES)
    val files = env.getSourceFiles()
    val trace = NoScopeRecordCliBindingTrace()
    val result = TopDownAnalyzerFacadeForJVM.analyzeFilesWithJavaIntegration(
        env.project, files, trace, conf, { scope -> env.createPackagePartProvider(scope) })
    bc = result.bindingContext
    module = result.moduleDescriptor
    val errs = bc.diagnostics.all().count { it.severity == org.jetbrains.kotlin.diagnostics.Severity.ERROR }
    if (errs > 0) {
        System.err.println("oracle-kotlin: $errs compile errors (calls that do not resolve are left out)")
        for (d in bc.diagnostics.all().filter { it.severity == org.jetbrains.kotlin.diagnostics.Severity.ERROR }.take(10))
            System.err.println("  ${d.psiFile.name}: ${d.factory.name}: ${d.psiElement.text.take(60)}")
    }

    // which project functions a project function overrides
    for (f in files) f.accept(object : KtTreeVisitorVoid() {
        override fun visitNamedFunction(function: KtNamedFunction) {
            val d = bc[BindingContext.FUNCTION, function]
            if (d != null) markOverridden(d)
            super.visitNamedFunction(function)
        }
        override fun visitProperty(property: KtProperty) {
            val d = bc[BindingContext.VARIABLE, property]
            if (d is CallableMemberDescriptor) markOverridden(d)
            super.visitProperty(property)
        }
    })

    val out = PrintWriter(System.out.bufferedWriter(Charsets.UTF_8))
    val lines = ArrayList<Triple<String, Int, String>>()
    for (f in files) {
        val path = relPath(f) ?: continue
        f.accept(Calls(f, path, lines))
    }
    lines.sortWith(compareBy({ it.first }, { it.second }))
    for (l in lines) out.print(l.third)
    out.flush()
    Disposer.dispose(disposable)
}

fun markOverridden(d: CallableMemberDescriptor) {
    val seen = HashSet<CallableMemberDescriptor>()
    fun walk(x: CallableMemberDescriptor) {
        for (o in x.overriddenDescriptors) {
            val oo = o.original
            if (!seen.add(oo)) continue
            if (oo.kind != CallableMemberDescriptor.Kind.FAKE_OVERRIDE) overridden += oo
            walk(oo)
        }
    }
    walk(d.original)
}

fun relPath(f: KtFile): String? {
    val vf = f.virtualFile ?: return null
    return relOf[File(vf.path).canonicalPath]
}

fun starts(f: PsiElement): IntArray {
    val file = f.containingFile
    val key = file.virtualFile?.path ?: file.name
    return lineStarts.getOrPut(key) {
        val t = file.text
        val l = ArrayList<Int>(); l += 0
        for (k in t.indices) if (t[k] == '\n') l += k + 1
        l.toIntArray()
    }
}

/* 1-based line of an offset in e's file */
fun lineOf(e: PsiElement, off: Int): Int {
    val s = starts(e)
    var lo = 0; var hi = s.size - 1
    while (lo < hi) { val m = (lo + hi + 1) / 2; if (s[m] <= off) lo = m else hi = m - 1 }
    return lo + 1
}

/* line and byte column of an offset */
fun place(e: PsiElement, off: Int): String {
    val line = lineOf(e, off)
    val ls = starts(e)[line - 1]
    val text = e.containingFile.text
    val col = text.substring(ls, off).toByteArray(Charsets.UTF_8).size + 1
    return "$line\t$col"
}

/* where a declaration starts: its first annotation or modifier, its doc comment skipped */
fun declStart(d: PsiElement): Int {
    var c = d.firstChild
    while (c != null && (c is PsiComment || c is PsiWhiteSpace)) c = c.nextSibling
    return c?.textRange?.startOffset ?: d.textRange.startOffset
}

/* the places of a declaration of the project: its start line and its name's line */
fun placesOf(d: DeclarationDescriptor?, acc: MutableList<String>) {
    if (d == null) return
    val psi = DescriptorToSourceUtils.descriptorToDeclaration(d) ?: return
    val kf = psi.containingFile as? KtFile ?: return
    val r = relPath(kf) ?: return
    val ps = ArrayList<Int>()
    ps += lineOf(psi, declStart(psi))
    val nid = (psi as? PsiNameIdentifierOwner)?.nameIdentifier
    if (nid != null) ps += lineOf(psi, nid.textRange.startOffset)
    for (p in ps) { val s = "$r:$p"; if (s !in acc) acc += s }
}

fun inProject(d: DeclarationDescriptor): Boolean {
    val psi = DescriptorToSourceUtils.descriptorToDeclaration(d) ?: return false
    val kf = psi.containingFile as? KtFile ?: return false
    return relPath(kf) != null
}

/* kbx keeps one node for the overloads of a name in a class or file, at the first of them */
fun firstOverloadPlaces(d: DeclarationDescriptor, acc: MutableList<String>) {
    val psi = DescriptorToSourceUtils.descriptorToDeclaration(d) as? KtNamedFunction ?: return
    val name = psi.name ?: return
    val parent = psi.parent ?: return
    var first: KtNamedFunction = psi
    for (c in parent.children)
        if (c is KtNamedFunction && c.name == name && c.textRange.startOffset < first.textRange.startOffset) first = c
    if (first !== psi) {
        val fd = bc[BindingContext.FUNCTION, first]
        if (fd != null) placesOf(fd, acc)
    }
}

fun functionPlaces(d: DeclarationDescriptor, acc: MutableList<String>) {
    placesOf(d, acc)
    firstOverloadPlaces(d, acc)
    sameNameClassPlaces(d, acc)
}

/* kbx keeps one node for a function and a class of the same name in one
 * scope (the factory fun Job() beside interface Job): the class's places
 * stand for the function too */
fun sameNameClassPlaces(d: DeclarationDescriptor, acc: MutableList<String>) {
    val psi = DescriptorToSourceUtils.descriptorToDeclaration(d) as? KtNamedFunction ?: return
    val name = psi.name ?: return
    val parent = psi.parent ?: return
    for (c in parent.children)
        if (c is KtClassOrObject && c.name == name) {
            val cd = bc[BindingContext.CLASS, c]
            if (cd != null) placesOf(cd, acc)
        }
}

/* a class and its companion object are one kbx node */
fun classPlaces(c: ClassDescriptor, acc: MutableList<String>) {
    placesOf(c, acc)
    if (c.isCompanionObject) (c.containingDeclaration as? ClassDescriptor)?.let { placesOf(it, acc) }
    c.companionObjectDescriptor?.let { placesOf(it, acc) }
}

/* the source declarations a (maybe fake-override, maybe substituted) callable stands for */
fun declarations(d: CallableDescriptor): List<CallableDescriptor> {
    val o = d.original
    if (o is CallableMemberDescriptor && o.kind == CallableMemberDescriptor.Kind.FAKE_OVERRIDE) {
        val all = OverridingUtil.getOverriddenDeclarations(o).map { it.original }
        // an implementation wins over abstract declarations it implements
        val concrete = all.filter { it.modality != Modality.ABSTRACT }
        return if (concrete.isNotEmpty()) concrete else all
    }
    return listOf(o)
}

/* the actual declarations of an expect one, in the project */
fun actuals(d: DeclarationDescriptor): List<DeclarationDescriptor> {
    if (d !is MemberDescriptor || !d.isExpect) return emptyList()
    return try {
        with(ExpectedActualResolver) { d.findCompatibleActualForExpected(module) }
    } catch (e: Throwable) { emptyList() }
}

/* the expect declarations an actual one implements, in the project */
fun expecteds(d: DeclarationDescriptor): List<DeclarationDescriptor> {
    if (d !is MemberDescriptor || !d.isActual) return emptyList()
    return try {
        with(ExpectedActualResolver) { d.findCompatibleExpectedForActual(module) }
    } catch (e: Throwable) { emptyList() }
}

fun fq(d: DeclarationDescriptor): String = DescriptorUtils.getFqName(d).asString()

class Calls(val file: KtFile, val path: String, val lines: MutableList<Triple<String, Int, String>>) : KtTreeVisitorVoid() {

    fun emit(call: PsiElement, nameEl: PsiElement, name: String, kind: String, targets: List<String>, what: String) {
        // the call expression starts at its receiver: a.b.f(x) starts at a
        var e: PsiElement = call
        while (true) {
            val p = e.parent
            if (p is KtQualifiedExpression && p.selectorExpression === e) e = p else break
        }
        val start = e.textRange.startOffset
        val caller = callerPlaces(call)
        val sb = StringBuilder()
        sb.append(path).append('\t').append(place(call, start)).append('\t')
            .append(place(call, nameEl.textRange.startOffset)).append('\t')
            .append(name).append('\t').append(kind).append('\t')
            .append(if (targets.isEmpty()) "-" else targets.joinToString(",")).append('\t')
            .append(what).append('\t').append(if (caller.isEmpty()) "-" else caller.joinToString(",")).append('\n')
        lines += Triple(path, start, sb.toString())
    }

    fun callerPlaces(e: PsiElement): List<String> {
        var p: PsiElement? = e.parent
        while (p != null && p !is KtFile) {
            if (p is KtClassOrObject) return emptyList()
            if (p is KtNamedFunction && p.name != null) {
                val d = bc[BindingContext.FUNCTION, p] ?: return emptyList()
                val acc = ArrayList<String>(); functionPlaces(d, acc); return acc
            }
            if (p is KtSecondaryConstructor || p is KtPropertyAccessor) {
                val d = bc[BindingContext.DECLARATION_TO_DESCRIPTOR, p as KtDeclaration] ?: return emptyList()
                val acc = ArrayList<String>(); placesOf(d, acc); return acc
            }
            p = p.parent
        }
        return emptyList()
    }

    /* one resolved call, written as `name` at nameEl */
    fun report(call: PsiElement, nameEl: PsiElement, name: String, rc0: ResolvedCall<out CallableDescriptor>) {
        var rc: ResolvedCall<out CallableDescriptor> = rc0
        val targets = ArrayList<String>()
        if (rc is VariableAsFunctionResolvedCall) {
            // f(x): a value with an invoke
            val v = rc.variableCall.resultingDescriptor
            val inv = rc.functionCall.resultingDescriptor
            if (inv.containingDeclaration is FunctionClassDescriptor || !inProject(declarations(inv).first())) {
                emit(call, nameEl, name, if (inv.containingDeclaration is FunctionClassDescriptor) "dyn" else "ext", targets,
                    fq(v) + "." + inv.name.asString())
                return
            }
            // an object (or a value of a class of the project) with an operator invoke
            val decls = declarations(inv)
            for (d in decls) functionPlaces(d, targets)
            val vt = v.returnType?.constructor?.declarationDescriptor
            if (v is FakeCallableDescriptorForObject || (vt is ClassDescriptor && vt.kind == ClassKind.OBJECT))
                (vt as? ClassDescriptor)?.let { classPlaces(it, targets) }
            val k = if (decls.any { it in overridden || (it as? MemberDescriptor)?.modality == Modality.ABSTRACT }) "virt" else "in"
            emit(call, nameEl, name, k, targets, fq(decls.first()))
            return
        }
        val d = rc.resultingDescriptor
        when {
            d is SamConstructorDescriptor ->
                emit(call, nameEl, name, "ext", targets, fq(d))
            d is ConstructorDescriptor -> {
                val ctor = (d as? TypeAliasConstructorDescriptor)?.underlyingConstructorDescriptor ?: d
                val cls = ctor.constructedClass
                if (d is TypeAliasConstructorDescriptor) {
                    placesOf(d.typeAliasDescriptor, targets)
                    // actual typealias X = java.X: the expect class X stands for it in common code
                    for (e in expecteds(d.typeAliasDescriptor)) if (e is ClassDescriptor) classPlaces(e, targets)
                }
                if (!inProject(cls)) {
                    if (targets.isEmpty()) { emit(call, nameEl, name, "ext", targets, fq(cls)); return }
                } else {
                    if (!ctor.isPrimary || DescriptorToSourceUtils.descriptorToDeclaration(ctor) is KtPrimaryConstructor)
                        placesOf(ctor.original, targets)
                    classPlaces(cls, targets)
                    for (a in actuals(cls) + expecteds(cls)) if (a is ClassDescriptor) classPlaces(a, targets)
                }
                emit(call, nameEl, name, "in", targets, fq(cls))
            }
            d is FunctionDescriptor -> {
                if (d.containingDeclaration is FunctionClassDescriptor) {
                    emit(call, nameEl, name, "dyn", targets, fq(d)); return
                }
                val decls = declarations(d)
                val proj = decls.filter { inProject(it) && (it as? CallableMemberDescriptor)?.kind != CallableMemberDescriptor.Kind.SYNTHESIZED }
                if (proj.isEmpty()) { emit(call, nameEl, name, "ext", targets, fq(decls.first())); return }
                var virt = false
                for (x in proj) {
                    // expect fun: the actual one is what runs
                    for (a in actuals(x)) functionPlaces(a, targets)
                    functionPlaces(x, targets)
                    // actual fun: the expect one stands for it in common code
                    for (a in expecteds(x)) functionPlaces(a, targets)
                    if (x in overridden || (x as? MemberDescriptor)?.modality == Modality.ABSTRACT &&
                        !(x as MemberDescriptor).isExpect) virt = true
                }
                emit(call, nameEl, name, if (virt) "virt" else "in", targets, fq(proj.first()))
            }
            else -> {}
        }
    }

    override fun visitCallExpression(expression: KtCallExpression) {
        val callee = expression.calleeExpression
        if (callee is KtNameReferenceExpression) {
            val rc = expression.getResolvedCall(bc)
            if (rc != null) report(expression, callee, callee.getReferencedName(), rc)
        }
        super.visitCallExpression(expression)
    }

    override fun visitBinaryExpression(expression: KtBinaryExpression) {
        val op = expression.operationReference
        if (op.getReferencedNameElementType() == KtTokens.IDENTIFIER) {
            val rc = expression.getResolvedCall(bc)
            if (rc != null) report(expression, op, op.getReferencedName(), rc)
        }
        super.visitBinaryExpression(expression)
    }

    override fun visitSuperTypeCallEntry(call: KtSuperTypeCallEntry) {
        if (System.getProperty("oracle.supertypes") == "false") return super.visitSuperTypeCallEntry(call)
        val ref = call.calleeExpression.constructorReferenceExpression
        val rc = call.getResolvedCall(bc)
        if (ref != null && rc != null) report(call, ref, ref.getReferencedName(), rc)
        super.visitSuperTypeCallEntry(call)
    }
}
