# The generator behind make-tree.sh.  With dir, list and v set: rewrite
# the modules in list as of version v.  With dir, npy and nc set: write
# the whole tree.
function py(n, v,    s, j, nx) {
	nx = sprintf("%04d", n + 1)
	s = "\"\"\"Generated module " n ".\"\"\"\n"
	s = s "from pkg import m" nx "\n\n"
	s = s sprintf("class Base%04d:\n    def run(self, x):\n        return f%04d_00(x)\n\n", n, n)
	if (n > 0)
		s = s sprintf("class Node%04d(Base%04d):\n    def run(self, x):\n        return self.step(x)\n\n    def step(self, x):\n        return x\n\n", n, n - 1)
	for (j = 0; j < 20; j++) {
		s = s sprintf("def f%04d_%02d(x):\n", n, j)
		if (j == 0 && v != "")
			s = s sprintf("    v%s_%04d(x)\n", v, n)
		if (j < 19)
			s = s sprintf("    if x > %d:\n        return f%04d_%02d(x - 1) + len(str(x))\n    return f%04d_%02d(x)\n\n", j, n, j + 1, n, j + 1)
		else if (n + 1 < NPY)
			s = s sprintf("    return m%s.f%s_00(x)\n\n", nx, nx)
		else
			s = s "    return c0000_entry(x)\n\n"
	}
	if (v != "")
		s = s sprintf("def v%s_%04d(x):\n    return x\n", v, n)
	return s
}
function c(n,    s, j) {
	s = sprintf("#include \"c%04d.h\"\n#include <stdio.h>\n\n", n)
	for (j = 0; j < 20; j++) {
		s = s sprintf("static int g%04d_%02d(int x);\n", n, j)
	}
	s = s "\n"
	for (j = 0; j < 20; j++) {
		s = s sprintf("static int g%04d_%02d(int x)\n{\n\tif (x > %d) {\n\t\tprintf(\"%%d\\n\", x);\n\t\treturn g%04d_%02d(x - 1);\n\t}\n", n, j, j, n, (j + 1) % 20)
		s = s sprintf("\treturn x;\n}\n\n")
	}
	s = s sprintf("int c%04d_entry(int x)\n{\n\treturn g%04d_00(x)", n, n)
	if (n + 1 < NC)
		s = s sprintf(" + c%04d_entry(x)", n + 1)
	s = s ";\n}\n"
	return s
}
BEGIN {
	NPY = npy + 0
	NC = nc + 0
	if (list != "") {
		# rewrite these modules as of version v; the last module of
		# the tree is the one without a next
		k = split(list, files, " ")
		for (i = 1; i <= k; i++) {
			m = files[i]
			sub(/.*\/m/, "", m)
			sub(/\.py$/, "", m)
			next_file = sprintf("%s/pkg/m%04d.py", dir, m + 1)
			NPY = (getline line <next_file) > 0 ? 1000000 : m + 1
			close(next_file)
			f = dir "/" files[i]
			printf "%s", py(m + 0, v) >f
			close(f)
		}
		exit
	}
	for (i = 0; i < NPY; i++) {
		f = sprintf("%s/pkg/m%04d.py", dir, i)
		printf "%s", py(i, "") >f
		close(f)
	}
	for (i = 0; i < NC; i++) {
		f = sprintf("%s/csrc/c%04d.c", dir, i)
		printf "%s", c(i) >f
		close(f)
		f = sprintf("%s/csrc/c%04d.h", dir, i)
		printf "int c%04d_entry(int x);\n", i >f
		close(f)
	}
}
