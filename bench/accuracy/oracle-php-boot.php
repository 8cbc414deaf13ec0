<?php
// bench/accuracy/oracle-php-boot.php: the bootstrap oracle-php.py gives
// PHPUnit (--bootstrap), loaded before any test.
//
// - An autoloader for the project's classes: a class Ns\Sub\Name is the
//   file Ns/Sub/Name.php under one of the folders $ORACLE_PHP_AUTOLOAD
//   names (colon-separated, relative to the current folder), as Debian's
//   phpab-made autoloaders and Composer's PSR-0 map do for such a tree.
// - At shutdown, the places of every user-defined function, method and
//   class loaded by then, written to $ORACLE_PHP_MAP as TSV lines
//   (NAME  FILE  LINE), where NAME is how Xdebug's traces name a call:
//   "fn", "Class->method" and "Class::method" (for every class that has
//   the method, inherited or not: the place is the declaration's),
//   "Class" for the class itself, and "Class@parents" with its parent
//   classes and interfaces, comma-separated, in place of the file (line 0).

spl_autoload_register(function (string $class): void {
    foreach (explode(':', (string) getenv('ORACLE_PHP_AUTOLOAD')) as $dir) {
        if ($dir === '') {
            continue;
        }
        $file = getcwd() . '/' . $dir . '/' . str_replace('\\', '/', $class) . '.php';
        if (is_file($file)) {
            require $file;
            return;
        }
    }
});

register_shutdown_function(function (): void {
    $out = getenv('ORACLE_PHP_MAP');
    if (!$out) {
        return;
    }
    $f = fopen($out, 'w');
    foreach (get_defined_functions()['user'] as $fn) {
        $r = new ReflectionFunction($fn);
        fwrite($f, $r->getName() . "\t" . $r->getFileName() . "\t" . $r->getStartLine() . "\n");
    }
    $types = array_merge(get_declared_classes(), get_declared_interfaces(), get_declared_traits());
    foreach ($types as $class) {
        $c = new ReflectionClass($class);
        if (!$c->isUserDefined()) {
            continue;
        }
        $name = $c->getName();
        fwrite($f, $name . "\t" . $c->getFileName() . "\t" . $c->getStartLine() . "\n");
        fwrite($f, $name . "@parents\t" . implode(',', array_merge(class_parents($name), class_implements($name))) . "\t0\n");
        foreach ($c->getMethods() as $m) {
            if (!$m->isUserDefined()) {
                continue;
            }
            $place = "\t" . $m->getFileName() . "\t" . $m->getStartLine() . "\n";
            fwrite($f, $name . '->' . $m->getName() . $place);
            fwrite($f, $name . '::' . $m->getName() . $place);
        }
    }
    fclose($f);
});
