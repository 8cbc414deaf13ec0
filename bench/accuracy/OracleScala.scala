/*
 * bench/accuracy/OracleScala.scala: scalac (Scala 2.11's compiler, its
 * typer run through scala.tools.nsc.Global) as the oracle of the
 * accuracy bench.
 *
 *   scala -cp OUT OracleScala ROOT CLASSPATH [EXTRA.scala...] < FILES > oracle.tsv
 *
 * FILES lists the .scala files to compile, one a line, relative to ROOT;
 * EXTRA files are compiled beside them but are not the project's (what a
 * build tool would generate, such as sbt's BuildInfo).  The files are
 * parsed and typed together (no class files are written; the compiler
 * stops after its typer) with range positions, and every call written
 * with an argument list, every infix call of a named method (a op b,
 * xs map f) and every construction (new T(...)) becomes one line in the
 * format bench/accuracy/score.py reads:
 *
 *   a method or constructor declared in FILES, which no method declared
 *     in FILES overrides                                       in
 *   a method declared in FILES that a method declared in FILES overrides
 *     or implements (chosen at run time)                       virt
 *   a method declared elsewhere (the Scala library, a jar of CLASSPATH,
 *     EXTRA), or one the compiler made (a case class's copy)    ext
 *   the apply of a value of function type (f(x) with f a parameter
 *     or a val)                                                dyn
 *
 * Foo(x) where Foo is an object is a call of Foo.apply, written with the
 * name Foo: its places are the apply's and the object's and its
 * companion class's (kbx sends Foo(...) to Foo); a case class's apply,
 * which the compiler writes, has the class's places.  A construction
 * has the constructor's places and its class's.
 *
 * Not listed: calls without an argument list (x.size, which the syntax
 * does not tell from a field), calls the compiler writes (implicit
 * conversions, the map and flatMap of a for comprehension, a case
 * class's synthetic members calling each other), super(...) and
 * this(...) constructor calls.  The column is counted in characters
 * (the same as bytes for ASCII lines).
 *
 * A declaration's places are the line where its tree starts (modifiers
 * and annotations included, as kbx counts it) and the line of its name.
 * The last column gives the places of the method the call is written in,
 * for score.py to tell calls of the method itself from other misses.
 */
import scala.tools.nsc.{Global, Settings}
import scala.tools.nsc.reporters.ConsoleReporter
import scala.collection.mutable

object OracleScala {
  def main(args: Array[String]): Unit = {
    if (args.length < 2) {
      System.err.println("usage: scala OracleScala ROOT CLASSPATH [EXTRA.scala...] < FILES")
      sys.exit(2)
    }
    val root = new java.io.File(args(0)).getCanonicalFile
    val rel = io.Source.stdin.getLines().map(_.trim).filter(_.nonEmpty).toList
    val files = rel.map(r => new java.io.File(root, r).getCanonicalPath)
    val relOf = files.zip(rel).toMap
    val extras = args.drop(2).toList

    val settings = new Settings(m => System.err.println(m))
    settings.classpath.value = args(1)
    settings.usejavacp.value = true
    settings.stopAfter.value = List("typer")
    settings.Yrangepos.value = true
    settings.nowarn.value = true
    val reporter = new ConsoleReporter(settings)
    val g = new Global(settings, reporter)
    import g._

    val run = new Run
    run.compile(files ++ extras)
    if (reporter.hasErrors)
      System.err.println("the compiler reported errors: calls it could not type are left out")

    val units = run.units.toList.filter(u => relOf.contains(u.source.file.canonicalPath))

    def relPath(p: Position): Option[String] =
      if (p == null || !p.isDefined) None
      else relOf.get(p.source.file.canonicalPath)

    def lineOf(p: Position, off: Int): Int = p.source.offsetToLine(off) + 1

    // the places of every declaration of the project: its tree's first
    // line and its name's line
    val places = mutable.Map[Symbol, mutable.LinkedHashSet[String]]()
    val overridden = mutable.Set[Symbol]()
    // the methods of each class by name: its overloads
    val byName = mutable.Map[(Symbol, String), List[Symbol]]()
    // the classes, traits and objects of each scope by name: a type and
    // its companion (the compiler's companionClass is not reliable after
    // a run stopped at the typer)
    val types = mutable.Map[(Symbol, String), List[Symbol]]()
    def addPlaces(sym: Symbol, t: Tree): Unit = {
      val r = relPath(t.pos)
      if (sym == null || sym == NoSymbol || r.isEmpty) return
      val set = places.getOrElseUpdate(sym, mutable.LinkedHashSet[String]())
      val start = if (t.pos.isRange) t.pos.start else t.pos.point
      // modifiers and annotations: where the first of them starts
      val mstart = t match {
        case md: MemberDef =>
          (md.mods.annotations.map(a => if (a.pos.isRange) a.pos.start else Int.MaxValue) ++
            md.mods.positions.values.map(p => if (p.isDefined) p.point else Int.MaxValue)).foldLeft(start)(_ min _)
        case _ => start
      }
      // after the typer, a declaration's annotations are its symbol's
      val astart = (sym.annotations.map(a => if (a.pos.isDefined && a.pos.source == t.pos.source)
        (if (a.pos.isRange) a.pos.start else a.pos.point) else Int.MaxValue) :+ mstart).min
      // an annotation's position is its name, after the @
      val first = if (astart < mstart && astart > 0 && t.pos.source.content(astart - 1) == '@') astart - 1 else astart
      set += s"${r.get}:${lineOf(t.pos, first)}"
      set += s"${r.get}:${lineOf(t.pos, t.pos.point)}"
    }
    for (u <- units) {
      new Traverser {
        override def traverse(t: Tree): Unit = {
          t match {
            case d: DefDef if d.symbol != null && d.symbol != NoSymbol =>
              addPlaces(d.symbol, d)
              overridden ++= d.symbol.allOverriddenSymbols
              if (d.pos.isDefined) {
                val k = (d.symbol.owner, d.symbol.name.toString)
                byName(k) = d.symbol :: byName.getOrElse(k, Nil)
              }
            case d: ClassDef if d.symbol != null =>
              addPlaces(d.symbol, d)
              types((d.symbol.owner, d.symbol.name.toString)) = d.symbol :: types.getOrElse((d.symbol.owner, d.symbol.name.toString), Nil)
            case d: ModuleDef if d.symbol != null =>
              addPlaces(d.symbol, d)
              addPlaces(d.symbol.moduleClass, d)
              types((d.symbol.owner, d.symbol.name.toString)) = d.symbol :: types.getOrElse((d.symbol.owner, d.symbol.name.toString), Nil)
            case _ =>
          }
          super.traverse(t)
        }
      }.traverse(u.body)
    }
    def placesOf(s: Symbol): List[String] =
      places.get(s).map(_.toList).getOrElse(Nil)
    // kbx keeps one node for the overloads of a name in a class (one
    // canonical id), at the first of them: that node stands for each
    def firstOverload(s: Symbol): Symbol = {
      val alts = byName.getOrElse((s.owner, s.name.toString), Nil)
      if (alts.isEmpty) s else alts.minBy(_.pos.point)
    }
    def methodPlaces(s: Symbol): List[String] =
      if (!places.contains(s)) Nil else (placesOf(s) ++ placesOf(firstOverload(s))).distinct
    def inProject(s: Symbol): Boolean = places.contains(s)
    // the places of a class or object and of its companion
    def typePlaces(s: Symbol): List[String] = {
      val t = if (s.isModuleClass) s.sourceModule else s
      (placesOf(s) ++ types.getOrElse((t.owner, t.name.toString), Nil).flatMap(placesOf)).distinct
    }

    val out = new java.io.PrintWriter(new java.io.OutputStreamWriter(System.out, "UTF-8"))
    val lines = mutable.ArrayBuffer[(String, Int, Int, String)]()

    for (u <- units) {
      val src = u.source
      val text = src.content
      val path = relOf(u.source.file.canonicalPath)
      def textAt(off: Int, s: String): Boolean =
        off >= 0 && off + s.length <= text.length && new String(text, off, s.length) == s
      def col(off: Int): Int = off - src.lineToOffset(src.offsetToLine(off)) + 1
      // the character before off, blanks skipped
      def before(off: Int): Char = {
        var i = off - 1
        while (i >= 0 && text(i).isWhitespace) i -= 1
        if (i < 0) ' ' else text(i)
      }
      // the character after off, blanks skipped
      def after(off: Int): Char = {
        var i = off
        while (i < text.length && text(i).isWhitespace) i += 1
        if (i >= text.length) ' ' else text(i)
      }

      def emit(call: Tree, nameOff: Int, name: String, kind: String, targets: List[String],
               what: String, caller: List[String]): Unit = {
        val startOff = if (call.pos.isRange) call.pos.start else call.pos.point
        val tg = if (targets.isEmpty) "-" else targets.distinct.mkString(",")
        val cl = if (caller.isEmpty) "" else "\t" + caller.mkString(",")
        lines += ((path, lineOf(call.pos, startOff), col(startOff),
          s"\t${lineOf(call.pos, nameOff)}\t${col(nameOff)}\t$name\t$kind\t$tg\t$what$cl"))
      }

      def kindOf(s: Symbol): String =
        if (!inProject(s) || s.isSynthetic) "ext"
        else if (overridden.contains(s) || s.isDeferred) "virt"
        else "in"

      def call(t: Tree, fun0: Tree, hasArgs: Boolean, caller: List[String]): Unit = {
        val fun = fun0 match { case TypeApply(f, _) => f; case f => f }
        val sym = fun.symbol
        if (sym == null || sym == NoSymbol || !fun.pos.isDefined || fun.pos.isTransparent) return
        val funEnd = if (fun0.pos.isRange) fun0.pos.end else fun0.pos.point
        val written = after(funEnd) == '(' || after(funEnd) == '{'
        fun match {
          // new T(...), new T { ... } (an anonymous subclass of T: a
          // call of T's constructor, as kbx counts it)
          case Select(New(tpt), nme.CONSTRUCTOR) =>
            val anon = sym.owner.isAnonymousClass
            if (sym.owner.isAnonymousFunction || sym.owner.name.toString.startsWith("$anonfun")) return
            val start = if (t.pos.isRange) t.pos.start else t.pos.point
            if (!textAt(start, "new")) return
            // the type as written after new: a.b.T[X](...) or a.b.T { ... }
            var i = start + 3
            while (i < text.length && text(i).isWhitespace) i += 1
            var j = i
            while (j < text.length && (text(j).isLetterOrDigit || text(j) == '_' || text(j) == '.' || text(j) == '$')) j += 1
            val written = new String(text, i, j - i)
            val last = written.substring(written.lastIndexOf('.') + 1)
            val off = i + written.lastIndexOf('.') + 1
            val cls = if (!anon) sym.owner
              else sym.owner.info.parents.map(_.typeSymbol).find(_.name.decode == last).getOrElse(NoSymbol)
            if (cls == NoSymbol || cls.name.decode != last) return
            val ctor = if (anon) cls.primaryConstructor else sym
            // kbx keeps a class and its companion object as one node
            val own = typePlaces(cls)
            val k = if (!inProject(ctor) && !inProject(cls)) "ext" else "in"
            emit(t, off, last, k, if (k == "ext") Nil else placesOf(ctor) ++ own, cls.fullName, caller)
          case Select(_, nme.CONSTRUCTOR) => // super(...), this(...)
          // Foo(x): Foo.apply(x), the apply not written
          case Select(qual, nme.apply) if !textAt(fun.pos.point, "apply") =>
            if (!written) return
            val qs = qual.symbol
            val name = if (qs != null && qs != NoSymbol) qs.name.decode else "apply"
            val off = if (qual.pos.isDefined) qual.pos.point else fun.pos.point
            if (!textAt(off, name)) return
            // an object, or a val that holds one (val JObject = JsonAST.JObject)
            val mod = if (qs != null && qs.isModule) qs
              else try {
                val ts = qual.tpe.widen.typeSymbol
                if (ts.isModuleClass) ts.sourceModule else NoSymbol
              } catch { case _: Throwable => NoSymbol }
            if (mod != NoSymbol) {
              // a case class's apply makes the class
              val made = sym.info.finalResultType.typeSymbol
              val comp = made
              val own = placesOf(mod.moduleClass) ++ typePlaces(mod) ++ typePlaces(comp)
              if (sym.isSynthetic || !inProject(sym)) {
                if (own.isEmpty || !inProject(comp)) emit(t, off, name, "ext", Nil, sym.fullName, caller)
                else emit(t, off, name, "in", own, comp.fullName, caller)
              } else {
                val k = kindOf(sym)
                emit(t, off, name, k, if (k == "ext") Nil else methodPlaces(sym) ++ own, sym.fullName, caller)
              }
            } else {
              // a value applied: a function, or an object of a class with apply
              emit(t, off, name, "dyn", Nil, sym.fullName, caller)
            }
          case Select(qual, n) =>
            if (!sym.isMethod) return
            val name = n.decode
            val off = fun.pos.point
            if (!textAt(off, name)) return
            val dotted = before(off) == '.'
            // f(x) the typer made this.f(x), Outer.f(x) or a package's f(x)
            // (a :: b is b.::(a): the receiver after the operator)
            val bare = !dotted && !(qual.pos.isDefined && qual.pos.isRange && !qual.pos.isTransparent &&
              (qual.pos.end <= off || (name.endsWith(":") && qual.pos.start >= off + name.length)))
            // a.f(x), a.f { ... }, f(x), or an infix call a op b
            if ((dotted || bare) && !written) return
            if (!dotted && !hasArgs) return
            val k = kindOf(sym)
            emit(t, off, name, k, if (k == "ext") Nil else methodPlaces(sym), sym.fullName, caller)
          case Ident(n) =>
            if (!sym.isMethod || !written) return
            val name = n.decode
            val off = fun.pos.point
            if (!textAt(off, name)) return
            val k = kindOf(sym)
            emit(t, off, name, k, if (k == "ext") Nil else methodPlaces(sym), sym.fullName, caller)
          case _ =>
        }
      }

      new Traverser {
        var caller: List[String] = Nil
        override def traverse(t: Tree): Unit = t match {
          case d: DefDef if d.symbol != null && d.symbol.isSynthetic =>
            // what the compiler wrote: a case class's members, its apply
          case d: DefDef if d.symbol != null =>
            val saved = caller
            caller = methodPlaces(d.symbol)
            super.traverse(t)
            caller = saved
          case Apply(fun, args) =>
            fun match {
              case Apply(_, _) =>                   // f(a)(b): the first list is the call
              case TypeApply(Apply(_, _), _) =>
              case _ => call(t, fun, args.nonEmpty, caller)
            }
            super.traverse(t)
          case _ => super.traverse(t)
        }
      }.traverse(u.body)
    }
    for ((p, l, c, rest) <- lines.sortBy(x => (x._1, x._2, x._3)))
      out.println(s"$p\t$l\t$c$rest")
    out.flush()
  }
}
