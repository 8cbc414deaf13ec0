# The kbx Makefile: one GNU make over the whole tree, no recursion.
#
#   ./configure && make            build ./kbx, the vector module, man pages
#   make check                     build everything, then run the tests
#   make install [DESTDIR=...]     install under the configured prefix
#   make uninstall | unit-tests | bench | clean | distclean | help
#   make fuzz [FUZZ_SECONDS=60]    run each libFuzzer harness (needs clang)
#   make mcp-deps                  fetch the pinned MCP SDK and conformance
#                                  suite for the MCP tests into build/npm
#   make mermaid-deps              fetch the pinned Mermaid parser for the
#                                  pictures test into build/npm-mermaid
#
# Knobs on the command line:
#   V=1                        show full commands
#   DEVELOPER=1                strict warnings, as errors, for kbx's own code
#   SANITIZE=address,undefined build kbx's own code and tests with sanitizers
#   FUZZ_SECONDS=N             how long make fuzz runs each harness
#
# Sources are found by wildcard, so adding a file needs no edit here:
#   lib/<layer>/*.c             -> build/libkbx.a (all objects -fPIC), for each
#                                  layer of LIB_LAYERS: util text lang store
#                                  graph analysis registry embed search hybrid
#                                  context
#   cmd/*.c                     -> ./kbx
#   lib/vector/*.c *.cpp        -> build/kbx-vector.so, loaded at run time
#                                  (faiss_shim.cpp only when FAISS_C_SHIM=yes)
#   lib/embed/module/*.c        -> build/kbx-embed.so (http and command
#                                  embedding providers), loaded at run time
#   cmd/serve-module/*.c        -> build/kbx-serve.so (kbx serve's HTTP on
#                                  libmicrohttpd), loaded at run time
#   cmd/pg-module/*.c           -> build/kbx-pg.so (kbx push's PostgreSQL
#                                  client on libpq), loaded at run time
#   cmd/serve-page/*            -> build/gen/serve-page.h (kbx serve's page,
#                                  as C strings in the binary)
#   tests/unit/*.c              -> build/tests/unit/NAME, one program each
#   tests/fuzz/NAME.c           -> build/fuzz/NAME/fuzzer (clang, libFuzzer)
#                                  and build/tests/fuzz/NAME (replay, for check)
#   man/NAME.N.md               -> build/man/NAME.N
#   grammars/grammars.lock      -> build/grammars/ -> build/libkbx-grammars.a (tests)
#                                  and build/kbx-grammars.so, loaded at run time

.DEFAULT_GOAL := all
SHELL := /bin/sh
.SUFFIXES:
.DELETE_ON_ERROR:

# Goals that need neither config.mk nor the grammars.
NOCONFIG_GOALS := clean distclean help
CONFIG_GOALS := $(filter-out $(NOCONFIG_GOALS),$(or $(MAKECMDGOALS),all))

ifneq ($(wildcard config.mk),)
include config.mk
ifneq ($(CONFIG_GOALS),)
# configure changed: run it again with the arguments it was last given.
config.mk: configure
	@echo "configure is newer than config.mk; running ./configure again"
	$(SHELL) ./configure $(CONFIGURE_ARGS)
endif
else ifneq ($(CONFIG_GOALS),)
# A fresh clone: configure with its defaults, then make reads the new
# config.mk and goes on (./configure --install-deps installs what is
# missing first; without it configure names what is missing and stops).
include config.mk
config.mk:
	@echo "config.mk is missing: running ./configure"
	$(SHELL) ./configure
endif

# ---------------------------------------------------------------------------
# Output

ifneq ($(V),1)
Q = @
QUIET_CC    = @echo '   ' CC $(@:build/%=%);
QUIET_CXX   = @echo '   ' CXX $(@:build/%=%);
QUIET_AR    = @echo '   ' AR $(@:build/%=%);
QUIET_LINK  = @echo '   ' LINK $(@:build/%=%);
QUIET_GEN   = @echo '   ' GEN $(@:build/%=%);
QUIET_FETCH = @echo '   ' FETCH grammars;
endif

# ---------------------------------------------------------------------------
# Version: from git when this is a git work tree, else VERSION, else 0.1.0.
# A tag vX.Y.Z gives X.Y.Z[-N-gHASH][-dirty]; no tag gives 0.1.0-gHASH.
# (The case patterns have both parentheses so that make's $(shell) does not
# end at the first closing one.)

KBX_BASE_VERSION := $(or $(strip $(shell cat VERSION 2>/dev/null)),0.1.0)
KBX_VERSION := $(or $(strip $(shell \
	test -e .git || exit 0; \
	v=$$(git describe --match 'v[0-9]*' --always --dirty 2>/dev/null) || exit 0; \
	case $$v in \
	(v[0-9]*) echo "$${v#v}" ;; \
	(*) echo "$(KBX_BASE_VERSION)-g$$v" ;; \
	esac)),$(KBX_BASE_VERSION))

# ---------------------------------------------------------------------------
# Sources

# lib/ by layer, from the bottom (the README's "The tree" says what each holds)
LIB_LAYERS := util text lang store graph analysis registry embed search hybrid context
LIB_SRCS := $(foreach d,$(LIB_LAYERS),$(wildcard lib/$(d)/*.c))
CMD_SRCS := $(wildcard cmd/*.c)
VECTOR_SRCS := $(wildcard lib/vector/*.c)
EMBED_SRCS := $(wildcard lib/embed/module/*.c)
SERVE_SRCS := $(wildcard cmd/serve-module/*.c)
PG_SRCS := $(wildcard cmd/pg-module/*.c)
SERVE_PAGE := $(wildcard cmd/serve-page/*.html cmd/serve-page/*.css cmd/serve-page/*.js)
SHIM_SRCS := $(if $(filter yes,$(FAISS_C_SHIM)),$(wildcard lib/vector/faiss_shim.cpp))
UNIT_SRCS := $(wildcard tests/unit/*.c)
FUZZ_SRCS := $(filter-out tests/fuzz/replay.c,$(wildcard tests/fuzz/*.c))
MAN_SRCS := $(wildcard man/*.[1-9].md)

LIB_OBJS := $(LIB_SRCS:%.c=build/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=build/%.o)
# The module's other C++ (FAISS functions no C API offers): always built.
VECTOR_CXX_SRCS := $(filter-out lib/vector/faiss_shim.cpp,$(wildcard lib/vector/*.cpp))
VECTOR_OBJS := $(VECTOR_SRCS:%.c=build/%.o) $(SHIM_SRCS:%.cpp=build/%.o) \
	$(VECTOR_CXX_SRCS:%.cpp=build/%.o)
EMBED_OBJS := $(EMBED_SRCS:%.c=build/%.o)
SERVE_OBJS := $(SERVE_SRCS:%.c=build/%.o)
PG_OBJS := $(PG_SRCS:%.c=build/%.o)
UNIT_OBJS := $(UNIT_SRCS:%.c=build/%.o)
UNIT_PROGS := $(UNIT_SRCS:%.c=build/%)
FUZZ_NAMES := $(FUZZ_SRCS:tests/fuzz/%.c=%)
FUZZ_REPLAY_PROGS := $(FUZZ_SRCS:%.c=build/%)
FUZZ_REPLAY_OBJS := $(FUZZ_SRCS:%.c=build/%.o) $(if $(FUZZ_SRCS),build/tests/fuzz/replay.o)
MAN_PAGES := $(MAN_SRCS:man/%.md=build/man/%)

LIBKBX := build/libkbx.a
LIBGRAMMARS := build/libkbx-grammars.a
# tree-sitter's runtime alone, which kbx links (the grammars are a module)
LIBTS := build/libkbx-ts.a
# tree-sitter's runtime: Debian 12's libtree-sitter 0.20.7 built from its
# source package with a fix of kbx's own (it crashes when a parse is
# cancelled), fetched and patched by grammars/fetch.sh beside the grammars
# (grammars.lock's "# runtime:" line) and compiled into the grammar archive.
TS_RUNTIME := build/grammars/tree-sitter/lib
TS_CFLAGS := -I$(TS_RUNTIME)/include
TS_LIBS :=
PROGRAM := $(if $(CMD_SRCS),kbx)
# The module is built once lib/vector has C sources; the shim alone is not one.
MODULE := $(if $(VECTOR_SRCS),build/kbx-vector.so) $(if $(EMBED_SRCS),build/kbx-embed.so) \
	$(if $(SERVE_SRCS),build/kbx-serve.so) $(if $(PG_SRCS),build/kbx-pg.so) \
	build/kbx-grammars.so

# ---------------------------------------------------------------------------
# Flags

# -Wno-comment: comments quote shell globs such as ${BASH_SOURCE%/*}
DEVELOPER_WARNINGS = -Wall -Wextra -Wformat=2 -Wshadow -Wno-unused-parameter -Wno-comment \
	-Werror
ifeq ($(DEVELOPER),1)
DEVELOPER_CFLAGS = $(DEVELOPER_WARNINGS) -Wstrict-prototypes -Wmissing-prototypes
DEVELOPER_CXXFLAGS = $(DEVELOPER_WARNINGS)
endif
ifneq ($(SANITIZE),)
SANITIZE_FLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

KBX_CPPFLAGS = -Ilib -Icmd -Ibuild/grammars-include -Ibuild/gen \
	-DKBX_VERSION='"$(KBX_VERSION)"' \
	-DKBX_MODULE_DIR='"$(libexecdir)"' \
	-DKBX_DATA_DIR='"$(datadir)/kbx"' \
	-DKBX_MANDIR='"$(mandir)"' \
	$(TS_CFLAGS) $(LMDB_CFLAGS) $(YAML_CFLAGS) $(CMARK_CFLAGS) \
	$(PCRE2_CFLAGS) $(XXHASH_CFLAGS) $(STEMMER_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS) $(MHD_CFLAGS) \
	$(PQ_CFLAGS) \
	$(CPPFLAGS)
ALL_CFLAGS = $(strip $(KBX_CPPFLAGS) $(CFLAGS) $(DEVELOPER_CFLAGS) $(SANITIZE_FLAGS))
ALL_CXXFLAGS = $(strip $(KBX_CPPFLAGS) $(FAISS_CFLAGS) $(CXXFLAGS) $(DEVELOPER_CXXFLAGS) $(SANITIZE_FLAGS))
# LMDB's allocating calls go through lib/store/lmdb-count.c
LMDB_WRAP = -Wl,--wrap=mdb_cursor_open,--wrap=mdb_txn_begin
# and, in kbx, its tests and the fuzzers, every allocation of the code
# linked statically through lib/util/alloc-count.c: a refusal is counted
ALLOC_WRAP = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup
ALL_LDFLAGS = $(strip $(LDFLAGS) $(SANITIZE_FLAGS) $(LMDB_WRAP))

# Libraries of ./kbx and the unit tests.  Not FAISS, OpenBLAS, libgomp or
# libstdc++: only the vector module links those, so that commands which
# never load it do not pay for them at start-up.  Nor the grammars: kbx
# loads kbx-grammars.so when it first parses (lib/lang/grammars.h); the
# tests and fuzzers link them, with the table that names them.
KBX_OTHER_LIBS = $(TS_LIBS) $(LMDB_LIBS) $(YAML_LIBS) \
	$(CMARK_LIBS) $(PCRE2_LIBS) $(XXHASH_LIBS) $(STEMMER_LIBS) -lm -ldl -lpthread
KBX_LIBS = $(LIBKBX) $(LIBTS) $(KBX_OTHER_LIBS)
# (a group: the scanners' allocator takes malloc, which a test may wrap
# with a function of libkbx.a)
LINKED_GRAMMARS_LIBS = $(GRAMMAR_TABLE) -Wl,--start-group $(LIBKBX) $(LIBGRAMMARS) -Wl,--end-group \
	$(KBX_OTHER_LIBS)

# The module carries its own copy of what it needs from libkbx.a; the
# symbols of the static archives it links stay private to it, and a version
# script in lib/vector/, when there is one, says what it exports.
MODULE_MAP := $(wildcard lib/vector/*.map)
MODULE_SHARED = -shared -Wl,-z,defs -Wl,--exclude-libs,ALL -Wl,--as-needed
MODULE_LDFLAGS = $(MODULE_SHARED) $(MODULE_MAP:%=-Wl,--version-script=%)
MODULE_LIBS = $(LIBKBX) $(LIBTS) $(FAISS_LIBS) $(TS_LIBS) $(LMDB_LIBS) \
	$(YAML_LIBS) $(CMARK_LIBS) $(PCRE2_LIBS) $(XXHASH_LIBS) $(STEMMER_LIBS) -lm -ldl -lpthread
# The embedding module: libcurl and Jansson, which kbx itself does not link.
EMBED_MAP := $(wildcard lib/embed/module/*.map)
EMBED_LDFLAGS = $(MODULE_SHARED) $(EMBED_MAP:%=-Wl,--version-script=%)
EMBED_LIBS = $(LIBKBX) $(CURL_LIBS) $(JANSSON_LIBS) $(XXHASH_LIBS) -lpthread
# kbx serve's module: libmicrohttpd (and the TLS libraries it brings),
# nothing of libkbx.
SERVE_MAP := cmd/serve-module/kbx-serve.map
SERVE_LDFLAGS = $(MODULE_SHARED) -Wl,--version-script=$(SERVE_MAP)
# kbx push's module: libpq (and the TLS, Kerberos and LDAP libraries it
# brings), nothing of libkbx.
PG_MAP := cmd/pg-module/kbx-pg.map
PG_LDFLAGS = $(MODULE_SHARED) -Wl,--version-script=$(PG_MAP)

# Third-party grammar sources: optimised, PIC, and none of our warnings.
GRAMMAR_CFLAGS = -O2
OBJCOPY ?= objcopy

# Every object of ours depends on this file, which changes only when the
# flags (or the version baked into them) change, so a change of flags
# rebuilds what it should.
build/KBX-CFLAGS: FORCE
	@mkdir -p build
	@flags='$(subst ','\'',$(CC) $(ALL_CFLAGS) : $(CXX) $(ALL_CXXFLAGS) : $(ALL_LDFLAGS) : $(RELR_LDFLAGS) : $(KBX_LIBS) : $(FAISS_LIBS))'; \
	if test x"$$flags" != x"$$(cat $@ 2>/dev/null)"; then \
		test ! -f $@ || echo '    * new build flags'; \
		printf '%s\n' "$$flags" >$@; \
	fi

build/KBX-VERSION: FORCE
	@mkdir -p build
	@if test x'$(KBX_VERSION)' != x"$$(cat $@ 2>/dev/null)"; then \
		echo '$(KBX_VERSION)' >$@; \
	fi

# ---------------------------------------------------------------------------
# Grammars: fetched and checked by grammars/fetch.sh into build/grammars/,
# which "make clean" keeps and "make distclean" removes.  The list of their
# sources is known only after the fetch, so it lives in a makefile that make
# builds, includes, and then restarts with.

GRAMMAR_DIR := build/grammars
GRAMMAR_STAMP := $(GRAMMAR_DIR)/.stamp
GRAMMAR_MK := $(GRAMMAR_DIR)/sources.mk
GRAMMAR_HEADER := build/grammars-include/kbx-grammars.h
# the directories fetch.sh unpacks into: "@scope/name" is "scope-name"
GRAMMAR_PKGS := $(shell awk '$$1 !~ /^[\#]/ && NF { n = $$1; sub(/^@/, "", n); \
	gsub(/\//, "-", n); print n }' grammars/grammars.lock 2>/dev/null)

GRAMMAR_SRCS :=
ifneq ($(CONFIG_GOALS),)
-include $(GRAMMAR_MK)
endif
GRAMMAR_OBJS := $(GRAMMAR_SRCS:$(GRAMMAR_DIR)/%.c=build/ts/%.o) build/ts/scanner-alloc.o
TS_RUNTIME_OBJ := $(TS_RUNTIME:$(GRAMMAR_DIR)/%=build/ts/%)/src/lib.o
GRAMMAR_PARSER_OBJS := $(filter-out $(TS_RUNTIME_OBJ),$(GRAMMAR_OBJS))
# the table of the grammars (lib/lang/grammars.h), from grammars.lock
GRAMMAR_TABLE := build/ts/grammar-table.o
GRAMMARS_MAP := grammars/kbx-grammars.map

$(GRAMMAR_STAMP): grammars/grammars.lock $(wildcard grammars/patches/*.patch)
	$(QUIET_FETCH)NPM='$(NPM)' $(SHELL) grammars/fetch.sh $(GRAMMAR_DIR) grammars/grammars.lock
	@touch $@

$(GRAMMAR_MK): $(GRAMMAR_STAMP)
	$(QUIET_GEN)for p in $(GRAMMAR_PKGS); do \
		for f in $(GRAMMAR_DIR)/$$p/package/src/parser.c \
			 $(GRAMMAR_DIR)/$$p/package/src/scanner.c \
			 $(GRAMMAR_DIR)/$$p/package/*/src/parser.c \
			 $(GRAMMAR_DIR)/$$p/package/*/src/scanner.c \
			 $(GRAMMAR_DIR)/$$p/package/grammars/*/src/parser.c \
			 $(GRAMMAR_DIR)/$$p/package/grammars/*/src/scanner.c; do \
			test ! -f "$$f" || echo "GRAMMAR_SRCS += $$f"; \
		done; \
	done >$@+ && \
	echo "GRAMMAR_SRCS += $(TS_RUNTIME)/src/lib.c" >>$@+ && mv $@+ $@

# Declarations of every grammar's entry point, from the lock file.
$(GRAMMAR_HEADER): grammars/grammars.lock Makefile | $(GRAMMAR_STAMP)
	@mkdir -p $(@D)
	$(QUIET_GEN)awk -v lock="$$(sha256sum grammars/grammars.lock | cut -c1-16)" 'BEGIN { \
		print "/* Generated from grammars/grammars.lock: do not edit. */"; \
		print "#ifndef KBX_GRAMMARS_H"; print "#define KBX_GRAMMARS_H"; \
		print "#include <tree_sitter/api.h>"; \
		print "#define KBX_GRAMMARS_LOCK \"" lock "\""; } \
	$$1 == "#" && $$2 == "exports:" { \
		for (i = 4; i <= NF; i++) print "const TSLanguage *" $$i "(void);"; } \
	END { print "#endif"; }' grammars/grammars.lock >$@+ && mv $@+ $@

# The table kbx finds the grammars by: every entry point grammars.lock
# names, and the scanners' allocator.
build/ts/grammar-table.c: grammars/grammars.lock Makefile
	@mkdir -p $(@D)
	$(QUIET_GEN)awk 'BEGIN { \
		print "/* Generated from grammars/grammars.lock: do not edit. */"; \
		print "#include \"kbx-grammars.h\""; print "#include \"lang/grammars.h\""; \
		print "void _kbx_scanner_use(void *(*)(size_t), void *(*)(size_t, size_t),"; \
		print "\t\t      void *(*)(void *, size_t), void (*)(void *));"; \
		print "static const struct kbx_grammar grammars[] = {"; } \
	$$1 == "#" && $$2 == "exports:" { \
		for (i = 4; i <= NF; i++) print "\t{ \"" $$i "\", " $$i " },"; } \
	END { print "};"; \
		print "const struct kbx_grammar_table _kbx_grammar_table = {"; \
		print "\tKBX_GRAMMARS_ABI, sizeof(grammars) / sizeof(grammars[0]), KBX_GRAMMARS_LOCK,"; \
		print "\t_kbx_scanner_use, grammars"; print "};"; }' grammars/grammars.lock >$@+ && mv $@+ $@

$(GRAMMAR_TABLE): build/ts/grammar-table.c lib/lang/grammars.h $(GRAMMAR_HEADER)
	$(QUIET_CC)$(CC) $(GRAMMAR_CFLAGS) -fPIC -Ilib -Ibuild/grammars-include $(TS_CFLAGS) \
		-c -o $@ $<

# The runtime's lib.c includes its other sources and its public header.
build/ts/tree-sitter/%.o build/fuzz/ts/tree-sitter/%.o: GRAMMAR_INCLUDES = -I$(TS_RUNTIME)/include

# A scanner's allocations go to tree-sitter's allocator, which kbx sets
# (grammars/scanner-alloc.c): out of memory, kbx exits with status 9
# where the scanner would have crashed.
SCANNER_SYMS = --redefine-sym malloc=_kbx_scanner_malloc \
	--redefine-sym calloc=_kbx_scanner_calloc \
	--redefine-sym realloc=_kbx_scanner_realloc \
	--redefine-sym free=_kbx_scanner_free
SCANNER_ALLOC = $(if $(filter %/scanner.o,$@),&& $(OBJCOPY) $(SCANNER_SYMS) $@)

# Profile-guided optimisation of the parsers (below): the flags and
# files, set before build/ts/'s rule needs them.
ifeq ($(PGO),yes)
PGO_DIR := build/pgo
PGO_STAMP := $(PGO_DIR)/profile.stamp
PGO_GEN := -fprofile-generate -fprofile-update=atomic
PGO_USE := -fprofile-use -fprofile-partial-training -Wno-missing-profile -w
# the parsers and scanners instrumented; the scanners' allocator and the
# grammars' table are the real build's (nothing to count in them)
PGO_GRAMMAR_OBJS := $(patsubst build/ts/%,$(PGO_DIR)/ts/%,\
	$(filter-out build/ts/scanner-alloc.o,$(GRAMMAR_PARSER_OBJS)))
PGO_RUNTIME_OBJ := $(TS_RUNTIME_OBJ:build/ts/%=$(PGO_DIR)/ts/%)
PGO_TRAIN := lib cmd tests bench
endif

build/ts/%.o: $(GRAMMAR_DIR)/%.c $(PGO_STAMP)
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(GRAMMAR_CFLAGS) $(PGO_USE) -fPIC -I$(<D) $(GRAMMAR_INCLUDES) -MMD -MP \
		-c -o $@ $< $(SCANNER_ALLOC)

# ---------------------------------------------------------------------------
# Profile-guided optimisation of tree-sitter's runtime and the grammars
#
# Parsing is most of the CPU of kbx index, in code that is not ours and
# that grammars.lock pins.  With PGO=yes (configure: GCC), the runtime and
# the grammars are first built with -fprofile-generate into build/pgo/; a
# kbx linked with them indexes the graph of a copy of this source tree
# (lib/, cmd/, tests/, bench/: its C, and tests/corpora in every language
# kbx parses; never a benchmark's corpus); the counts it leaves beside
# the objects they are for steer the build of build/ts/ (-fprofile-use).
# What the training never ran is optimised as without it
# (-fprofile-partial-training; -w: GCC says of each such function that it
# has no counts, a warning no flag turns off).  The counts are made once,
# and again only when the grammars change.
ifeq ($(PGO),yes)

# Compiled as build/ts/'s object (the counts of a static function are
# known by the object's name, and are written beside it: where the real
# build looks for them), then moved aside.
$(PGO_DIR)/ts/%.o: $(GRAMMAR_DIR)/%.c $(GRAMMAR_MK)
	@mkdir -p $(@D) build/ts/$(*D)
	$(QUIET_CC)$(CC) $(GRAMMAR_CFLAGS) $(PGO_GEN) -fPIC -I$(<D) $(GRAMMAR_INCLUDES) \
		-c -o build/ts/$*.o $< && mv build/ts/$*.o $@ $(SCANNER_ALLOC)

$(PGO_DIR)/ts/tree-sitter/%.o: GRAMMAR_INCLUDES = -I$(TS_RUNTIME)/include

$(PGO_DIR)/kbx-grammars.so: $(PGO_GRAMMAR_OBJS) build/ts/scanner-alloc.o $(GRAMMAR_TABLE) \
		$(GRAMMARS_MAP)
	$(QUIET_LINK)$(CC) $(PGO_GEN) $(MODULE_SHARED) -Wl,--version-script=$(GRAMMARS_MAP) \
		-o $@ $(GRAMMAR_TABLE) $(PGO_GRAMMAR_OBJS) build/ts/scanner-alloc.o

$(PGO_DIR)/kbx: $(CMD_OBJS) $(LIBKBX) $(PGO_RUNTIME_OBJ)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(PGO_GEN) $(ALLOC_WRAP) -o $@ $(CMD_OBJS) $(LIBKBX) \
		$(PGO_RUNTIME_OBJ) $(KBX_OTHER_LIBS)

# The training: the graph of the tree alone (no search index, no module
# but the grammars); each .gcda lands beside its object in build/ts/.
# (kbx's own objects built again, for a sanitizer: the counts stand)
$(PGO_STAMP): $(PGO_GRAMMAR_OBJS) $(PGO_RUNTIME_OBJ) | $(PGO_DIR)/kbx $(PGO_DIR)/kbx-grammars.so
	$(QUIET_GEN)rm -rf $(PGO_DIR)/train && mkdir -p $(PGO_DIR)/train/tree $(PGO_DIR)/train/home && \
	find build/ts -name '*.gcda' -exec rm -f {} + && \
	for d in $(PGO_TRAIN); do \
		find $$d -name 'trash directory*' -prune -o -path bench/work -prune -o \
			-type f -print | while read f; do \
			mkdir -p "$(PGO_DIR)/train/tree/$${f%/*}" && \
			cp "$$f" "$(PGO_DIR)/train/tree/$$f" || exit 1; \
		done || exit 1; \
	done && \
	HOME='$(CURDIR)/$(PGO_DIR)/train/home' XDG_CONFIG_HOME= XDG_STATE_HOME= \
	KBX_GRAMMARS_PATH='$(CURDIR)/$(PGO_DIR)/kbx-grammars.so' \
	KBX_MODULE_PATH=/nonexistent KBX_WORDS_PATH=/nonexistent \
		$(PGO_DIR)/kbx -C $(PGO_DIR)/train/tree --kbx-dir=.kbx -c index.codeChunks=false \
		-c index.markdown=false -c search.model=hash index -q --threads=1 && \
	rm -rf $(PGO_DIR)/train && touch $@
endif

build/ts/scanner-alloc.o: grammars/scanner-alloc.c
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(GRAMMAR_CFLAGS) -fPIC -MMD -MP -c -o $@ $<

$(LIBGRAMMARS): $(GRAMMAR_OBJS) $(GRAMMAR_MK)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $(GRAMMAR_OBJS)

$(LIBTS): $(TS_RUNTIME_OBJ) $(GRAMMAR_MK)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $(TS_RUNTIME_OBJ)

# The grammars as a module: its table is all it exports, and it needs
# nothing of kbx (the scanners' allocator comes through the table).
build/kbx-grammars.so: $(GRAMMAR_PARSER_OBJS) $(GRAMMAR_TABLE) $(GRAMMARS_MAP) build/KBX-CFLAGS
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(MODULE_SHARED) -Wl,--version-script=$(GRAMMARS_MAP) \
		-o $@ $(GRAMMAR_TABLE) $(GRAMMAR_PARSER_OBJS)

# ---------------------------------------------------------------------------
# kbx's own code

build/%.o: %.c build/KBX-CFLAGS | $(GRAMMAR_HEADER)
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) $(PIC) -MMD -MP -c -o $@ $<

build/%.o: %.cpp build/KBX-CFLAGS
	@mkdir -p $(@D)
	$(QUIET_CXX)$(CXX) $(ALL_CXXFLAGS) -fPIC -MMD -MP -c -o $@ $<

# Objects of lib/ may end up in the module: position-independent.
build/lib/%.o: PIC = -fPIC

$(LIBKBX): $(LIB_OBJS)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $(LIB_OBJS)

kbx: $(CMD_OBJS) $(LIBKBX) $(LIBTS) build/KBX-CFLAGS
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(ALLOC_WRAP) $(RELR_LDFLAGS) -o $@ $(CMD_OBJS) $(KBX_LIBS)

build/kbx-vector.so: $(VECTOR_OBJS) $(LIBKBX) $(LIBTS) $(MODULE_MAP) build/KBX-CFLAGS
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(MODULE_LDFLAGS) -o $@ $(VECTOR_OBJS) $(MODULE_LIBS)

build/kbx-embed.so: $(EMBED_OBJS) $(LIBKBX) $(EMBED_MAP) build/KBX-CFLAGS
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(EMBED_LDFLAGS) -o $@ $(EMBED_OBJS) $(EMBED_LIBS)

build/kbx-serve.so: $(SERVE_OBJS) $(SERVE_MAP) build/KBX-CFLAGS
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(SERVE_LDFLAGS) -o $@ $(SERVE_OBJS) $(MHD_LIBS)

build/kbx-pg.so: $(PG_OBJS) $(PG_MAP) build/KBX-CFLAGS
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(PG_LDFLAGS) -o $@ $(PG_OBJS) $(PQ_LIBS)

# kbx serve's page: its files as C strings, so that it serves nothing
# from disk.
build/cmd/serve-module/%.o: PIC = -fPIC
build/cmd/pg-module/%.o: PIC = -fPIC
build/gen/serve-page.h: $(SERVE_PAGE) cmd/serve-page/embed.sh
	@mkdir -p $(@D)
	$(QUIET_GEN)$(SHELL) cmd/serve-page/embed.sh $(SERVE_PAGE) >$@+ && mv $@+ $@
build/cmd/serve.o build/fuzz/obj/cmd/serve.o: build/gen/serve-page.h

$(UNIT_PROGS): build/tests/unit/%: build/tests/unit/%.o $(LIBKBX) $(LIBGRAMMARS) $(GRAMMAR_TABLE) \
		build/KBX-CFLAGS
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(ALLOC_WRAP) $(UNIT_LDFLAGS) -o $@ $< $(LINKED_GRAMMARS_LIBS)

# index-nomem makes libkbx's allocations fail at a moment it chooses: it
# defines the ALLOC_WRAP functions itself

# The fuzz harnesses replayed by make check: each linked with a main()
# that reads files instead of libFuzzer, by the ordinary compiler.  cmd/'s
# objects but the dispatcher (its main()) go in an archive, from which a
# harness of cmd/ code takes what it uses.
CMD_LIB_OBJS := $(filter-out build/cmd/kbx.o,$(CMD_OBJS))
CMD_LIB := build/tests/fuzz/libkbx-cmd.a

$(CMD_LIB): $(CMD_LIB_OBJS)
	@mkdir -p $(@D)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $(CMD_LIB_OBJS)

$(FUZZ_REPLAY_PROGS): build/tests/fuzz/%: build/tests/fuzz/%.o build/tests/fuzz/replay.o \
		$(CMD_LIB) $(LIBKBX) $(LIBGRAMMARS) $(GRAMMAR_TABLE) build/KBX-CFLAGS
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $< build/tests/fuzz/replay.o $(CMD_LIB) \
		$(LINKED_GRAMMARS_LIBS)

$(MAN_PAGES): build/man/%: man/%.md man/render.sh build/KBX-VERSION
	@mkdir -p $(@D)
	$(QUIET_GEN)CMARK='$(CMARK_PROG)' KBX_VERSION='$(KBX_VERSION)' \
		$(SHELL) man/render.sh $< $@

-include $(patsubst %.o,%.d,$(LIB_OBJS) $(CMD_OBJS) $(VECTOR_OBJS) $(SERVE_OBJS) $(PG_OBJS) $(UNIT_OBJS) $(GRAMMAR_OBJS) \
	$(FUZZ_REPLAY_OBJS))

# ---------------------------------------------------------------------------
# Fuzzing with clang's libFuzzer: make fuzz builds kbx's own code again
# with the fuzzer's coverage and ASan+UBSan into build/fuzz/obj/ (the
# grammar archive is linked as it is, but for the scanners, built again
# into build/fuzz/ts/), then runs each harness for
# FUZZ_SECONDS from its seeds (tests/fuzz/corpus/NAME/ and the inputs that
# once crashed, tests/fuzz/regressions/NAME/).  What it finds goes to
# build/fuzz/NAME/: new inputs to corpus/, a crash or a hang to crash-* or
# timeout-*, which fails make fuzz.  configure finds FUZZ_CC.

FUZZ_CC ?= clang
FUZZ_SECONDS = 60
FUZZ_TIMEOUT = 10
FUZZ_ARGS =
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
FUZZ_CFLAGS = $(strip $(KBX_CPPFLAGS) -g -O1 -fsanitize=fuzzer-no-link $(FUZZ_SANITIZE))
FUZZ_LDFLAGS = $(strip -fsanitize=fuzzer $(FUZZ_SANITIZE) $(LDFLAGS) $(LMDB_WRAP))
FUZZ_LIB := build/fuzz/libkbx.a
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=build/fuzz/obj/%.o)
FUZZ_CMD_LIB := build/fuzz/libkbx-cmd.a
FUZZ_CMD_LIB_OBJS := $(CMD_LIB_OBJS:build/%=build/fuzz/obj/%)
FUZZ_OBJS := $(FUZZ_SRCS:%.c=build/fuzz/obj/%.o)
FUZZ_PROGS := $(FUZZ_NAMES:%=build/fuzz/%/fuzzer)
# The grammars' hand-written scanners read the repository's files too, as
# does tree-sitter's runtime: built again with the sanitizers and linked
# before the grammar archive,
# whose own copies the linker then leaves out.  (The generated parsers
# are tables, and too large to build twice.)
FUZZ_SCANNER_OBJS := $(patsubst $(GRAMMAR_DIR)/%.c,build/fuzz/ts/%.o,\
	$(filter %/scanner.c %/lib/src/lib.c,$(GRAMMAR_SRCS)))

build/fuzz/FUZZ-CFLAGS: FORCE
	@mkdir -p build/fuzz
	@flags='$(subst ','\'',$(FUZZ_CC) $(FUZZ_CFLAGS) : $(FUZZ_LDFLAGS))'; \
	if test x"$$flags" != x"$$(cat $@ 2>/dev/null)"; then \
		printf '%s\n' "$$flags" >$@; \
	fi

build/fuzz/obj/%.o: %.c build/fuzz/FUZZ-CFLAGS | $(GRAMMAR_HEADER)
	@mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

build/fuzz/ts/%.o: $(GRAMMAR_DIR)/%.c build/fuzz/FUZZ-CFLAGS
	@mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -w -I$(<D) $(GRAMMAR_INCLUDES) -MMD -MP -c -o $@ $< \
		$(SCANNER_ALLOC)

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $(FUZZ_LIB_OBJS)

$(FUZZ_CMD_LIB): $(FUZZ_CMD_LIB_OBJS)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $(FUZZ_CMD_LIB_OBJS)

$(FUZZ_PROGS): build/fuzz/%/fuzzer: build/fuzz/obj/tests/fuzz/%.o $(FUZZ_CMD_LIB) $(FUZZ_LIB) \
		$(FUZZ_SCANNER_OBJS) $(LIBGRAMMARS) $(GRAMMAR_TABLE) build/fuzz/FUZZ-CFLAGS
	@mkdir -p $(@D)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $< $(GRAMMAR_TABLE) $(FUZZ_CMD_LIB) $(FUZZ_LIB) \
		$(FUZZ_SCANNER_OBJS) $(LIBGRAMMARS) $(TS_LIBS) $(LMDB_LIBS) $(YAML_LIBS) $(CMARK_LIBS) \
		$(PCRE2_LIBS) $(XXHASH_LIBS) $(STEMMER_LIBS) -lm -ldl -lpthread

-include $(patsubst %.o,%.d,$(FUZZ_LIB_OBJS) $(FUZZ_CMD_LIB_OBJS) $(FUZZ_OBJS) $(FUZZ_SCANNER_OBJS))

fuzz-build: $(if $(FUZZ_CC),$(FUZZ_PROGS),fuzz-no-cc)

fuzz-no-cc:
	@echo 'make fuzz needs clang with libFuzzer: run ./configure --install-deps' >&2; exit 1

# Each harness in turn; its log is build/fuzz/NAME/fuzz.log.  All run even
# when one fails, and then make fails naming them.
fuzz: fuzz-build
	$(Q)failed=; \
	for h in $(FUZZ_NAMES); do \
		dir=build/fuzz/$$h; \
		mkdir -p $$dir/corpus || exit 1; \
		seeds=; \
		for d in tests/fuzz/corpus/$$h tests/fuzz/regressions/$$h; do \
			test ! -d $$d || seeds="$$seeds $$d"; \
		done; \
		dict=; \
		test ! -f tests/fuzz/$$h.dict || dict=-dict=tests/fuzz/$$h.dict; \
		cmd="$$dir/fuzzer -max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_TIMEOUT) \
			-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$$dir/ \
			$$dict $(FUZZ_ARGS) $$dir/corpus$$seeds"; \
		echo "    FUZZ $$h ($(FUZZ_SECONDS) s)"; \
		test '$(V)' != 1 || echo "$$cmd"; \
		if $$cmd >$$dir/fuzz.log 2>&1; then \
			test '$(V)' != 1 || cat $$dir/fuzz.log; \
			sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/        \1 inputs run/p' \
				$$dir/fuzz.log; \
		else \
			tail -n 60 $$dir/fuzz.log; \
			echo "*** fuzz: $$h failed; the input is in $$dir/ (see $$dir/fuzz.log)"; \
			failed="$$failed $$h"; \
		fi; \
	done; \
	test -z "$$failed" || { echo "fuzz: failed:$$failed"; exit 1; }

# ---------------------------------------------------------------------------
# Goals

# The builtin embedding's word vectors: the tree carries them
# (models/words/build.sh learns them again from pinned inputs); kbx finds
# them in build/ next to the binary, as it finds its modules.
WORDS := $(if $(wildcard models/words/kbx-words.bin),build/kbx-words.bin)
build/kbx-words.bin: models/words/kbx-words.bin
	@mkdir -p build
	$(QUIET_GEN)cp $< $@

model-words: build/tests/unit/embed-tool
	bash models/words/build.sh

all: $(LIBGRAMMARS) $(LIBTS) $(GRAMMAR_HEADER) $(if $(LIB_SRCS),$(LIBKBX)) $(PROGRAM) $(MODULE) $(WORDS) $(MAN_PAGES)

# LD_PRELOAD libraries of the tests (tests/preload/*.c), built without
# kbx's flags: they replace malloc in a process of any build
PRELOAD_LIBS := $(patsubst tests/preload/%.c,build/tests/preload/%.so,$(wildcard tests/preload/*.c))
build/tests/preload/%.so: tests/preload/%.c
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -O2 -shared -fPIC -o $@ $<

unit-tests: $(UNIT_PROGS) $(FUZZ_REPLAY_PROGS) $(PRELOAD_LIBS)

# tests/run-tests.sh runs the whole suite.  Until it exists, run each
# tests/tNNNN-*.sh with bash and count.
check: all $(UNIT_PROGS) $(FUZZ_REPLAY_PROGS) $(PRELOAD_LIBS)
	$(Q)export KBX_BUILD_DIR='$(CURDIR)/build'; \
	if test -f tests/run-tests.sh; then \
		bash tests/run-tests.sh; \
	else \
		pass=0; fail=0; \
		for t in tests/t[0-9]*.sh; do \
			test -f "$$t" || continue; \
			echo "*** $$t"; \
			if bash "$$t"; then pass=$$((pass + 1)); \
			else fail=$$((fail + 1)); echo "*** $$t failed"; fi; \
		done; \
		echo "$$pass passed, $$fail failed"; \
		test $$fail = 0; \
	fi

# The MCP SDK and conformance suite of tests/t8410-mcp-sdk.sh, pinned by
# tests/mcp/package-lock.json, into build/npm (never committed).  Not a
# prerequisite of check, which skips those tests without them.
MCP_NPM_DIR := build/npm
mcp-deps: $(MCP_NPM_DIR)/.installed-lock
$(MCP_NPM_DIR)/.installed-lock: tests/mcp/package.json tests/mcp/package-lock.json tests/mcp/install.sh
	$(Q)NPM='$(NPM)' $(SHELL) tests/mcp/install.sh $(MCP_NPM_DIR)

# The Mermaid parser of tests/t3300-pictures.sh, pinned by version and
# checksum in tests/mermaid/install.sh, into build/npm-mermaid (never
# committed); run by headless Chromium.  check skips that test without it.
MERMAID_DIR := build/npm-mermaid
mermaid-deps: $(MERMAID_DIR)/VERSION
$(MERMAID_DIR)/VERSION: tests/mermaid/install.sh
	$(Q)NPM='$(NPM)' $(SHELL) tests/mermaid/install.sh $(MERMAID_DIR)

bench: all
	$(Q)test -f bench/run.sh || { echo 'bench/run.sh does not exist yet' >&2; exit 1; }
	$(Q)KBX_BUILD_DIR='$(CURDIR)/build' bash bench/run.sh

INSTALL = install
COMPLETIONS = \
	completions/kbx.bash:$(datadir)/bash-completion/completions/kbx \
	completions/_kbx:$(datadir)/zsh/site-functions/_kbx \
	completions/kbx.fish:$(datadir)/fish/vendor_completions.d/kbx.fish

install: all
ifneq ($(PROGRAM),)
	$(INSTALL) -d -m 755 '$(DESTDIR)$(bindir)'
	$(INSTALL) -m 755 kbx '$(DESTDIR)$(bindir)/kbx'
endif
ifneq ($(MODULE),)
	$(INSTALL) -d -m 755 '$(DESTDIR)$(libexecdir)'
	$(INSTALL) -m 755 $(MODULE) '$(DESTDIR)$(libexecdir)/'
endif
ifneq ($(WORDS),)
	$(INSTALL) -d -m 755 '$(DESTDIR)$(datadir)/kbx'
	$(INSTALL) -m 644 $(WORDS) '$(DESTDIR)$(datadir)/kbx/'
endif
	$(Q)for page in $(MAN_PAGES); do \
		dir='$(DESTDIR)$(mandir)'/man$${page##*.}; \
		echo "$(INSTALL) -m 644 $$page $$dir/"; \
		$(INSTALL) -d -m 755 "$$dir" && \
		$(INSTALL) -m 644 "$$page" "$$dir/" || exit 1; \
	done
	$(Q)for pair in $(COMPLETIONS); do \
		src=$${pair%%:*}; dst='$(DESTDIR)'$${pair#*:}; \
		test -f "$$src" || continue; \
		echo "$(INSTALL) -m 644 $$src $$dst"; \
		$(INSTALL) -d -m 755 "$$(dirname "$$dst")" && \
		$(INSTALL) -m 644 "$$src" "$$dst" || exit 1; \
	done

uninstall:
	rm -f '$(DESTDIR)$(bindir)/kbx' '$(DESTDIR)$(libexecdir)/kbx-vector.so' \
		'$(DESTDIR)$(libexecdir)/kbx-embed.so' '$(DESTDIR)$(libexecdir)/kbx-serve.so' \
		'$(DESTDIR)$(libexecdir)/kbx-pg.so' '$(DESTDIR)$(libexecdir)/kbx-grammars.so' \
		'$(DESTDIR)$(datadir)/kbx/kbx-words.bin'
	-rmdir '$(DESTDIR)$(libexecdir)' '$(DESTDIR)$(datadir)/kbx' 2>/dev/null
	$(Q)for page in $(MAN_SRCS:man/%.md=%); do \
		f='$(DESTDIR)$(mandir)'/man$${page##*.}/$$page; \
		echo "rm -f $$f"; rm -f "$$f"; \
	done
	$(Q)for pair in $(COMPLETIONS); do \
		f='$(DESTDIR)'$${pair#*:}; echo "rm -f $$f"; rm -f "$$f"; \
	done

clean:
	rm -rf kbx $(filter-out $(GRAMMAR_DIR) $(MCP_NPM_DIR) $(MERMAID_DIR),$(wildcard build/*)) tests/trash*

distclean: clean
	rm -rf build config.mk config.log

help:
	@sed -n '1,/^$$/ s/^# \{0,1\}//p' Makefile

.PHONY: all unit-tests check bench install uninstall clean distclean help FORCE model-words mcp-deps mermaid-deps \
	fuzz fuzz-build fuzz-no-cc
