#!/bin/sh
test_description='kbx context: what hybrid and search find, packed within a token budget

A registry (an error entry, a document) and a small Python tree written
for the test: a long parse_config with one caller and one callee, a
class whose methods lie inside it, and a helper that a symbolic link
replaces after indexing.  The pack keeps to the budget, one piece per
definition and no two overlapping, cuts a body too long for what is left
with a marker, adds the signatures of callers and callees, carries the
error entry'"'"'s cause and fix, reads the question from standard input,
exits as kbx search does, reads no file through a link and notices a
file shortened since it was indexed.  Java and TypeScript constructors
and a googletest case made by a macro, whose names their lines do not
hold, are packed from a file as it was indexed; in a file edited since,
only the definitions still at their lines are.'

. "$(dirname "$0")"/test-lib.sh

jfields () {
	python3 "$TEST_DIRECTORY/lib/jfields.py" "$@"
}

test_expect_success 'set up a registry and a tree' '
	mkdir -p reg/errors/python reg/docs repo/app repo/docs outside &&
	cat >reg/errors/python/config.yml <<-\EOF &&
	- id: "py-config-001"
	  error_type: "ConfigError"
	  severity: "error"
	  pattern: "ConfigError: missing key"
	  cause: >
	    The settings file lacks a key that parse_config requires.
	  fix_template: |
	    Add the missing key to the settings file, or give it a default.
	  tags: [config]
	EOF
	cat >reg/docs/settings.md <<-\EOF &&
	---
	id: doc-settings
	title: Writing the settings file
	category: doc
	language: all
	---
	# Writing the settings file

	The settings file holds one key per line, written key = value.
	Every required key must be present, or loading fails with a
	ConfigError that names the missing key.
	EOF
	cat >repo/app/config.py <<-\EOF &&
	from app.checks import check_entries


	class ConfigLoader:
	    def load_file(self, path):
	        return parse_config(path)

	    def reload_file(self, path):
	        return self.load_file(path)


	def parse_config(path):
	    entries = {}
	EOF
	i=0 &&
	while [ $i -lt 60 ]; do
		printf "    entries[\"key_%d\"] = read_value(path, \"key_%d\", default=%d)\n" $i $i $i >>repo/app/config.py &&
		i=$((i + 1))
	done &&
	cat >>repo/app/config.py <<-\EOF &&
	    check_entries(entries)
	    return entries


	def read_value(path, key, default=None):
	    return default
	EOF
	cat >repo/app/checks.py <<-\EOF &&
	def check_entries(entries):
	    for key in entries:
	        if entries[key] is None:
	            raise KeyError(key)
	EOF
	cat >repo/app/service.py <<-\EOF &&
	from app.config import parse_config


	def start_service(settings_path):
	    settings = parse_config(settings_path)
	    return settings
	EOF
	cat >repo/app/helpers.py <<-\EOF &&
	def format_banner(name):
	    return "banner " + name
	EOF
	cat >outside/helpers.py <<-\EOF &&
	def format_banner(name):
	    return "SECRET_OUTSIDE " + name
	EOF
	(cd repo && git init -q && kbx registry add ../reg >/dev/null 2>&1 && kbx index -q)
'

# no_overlaps: the pieces of the JSON on stdin hold no two overlapping
# line ranges of one file, and name each definition or document once
no_overlaps () {
	python3 -c '
import json, sys
seen, ranges = set(), {}
for line in sys.stdin:
    r = json.loads(line)
    if r["type"] != "piece":
        continue
    assert r["id"] not in seen, "twice: " + r["id"]
    seen.add(r["id"])
    if r["line"] is None:
        continue
    for a, b in ranges.get(r["path"], []):
        assert b < r["line"] or r["end_line"] < a, "overlap in %s" % r["path"]
    ranges.setdefault(r["path"], []).append((r["line"], r["def_end_line"] or r["end_line"]))
'
}

test_expect_success 'the pack keeps to the budget, and each piece counts its tokens' '
	for b in 100 300 1000 4000; do
		(cd repo && kbx context --format=json --budget=$b parse_config settings) >out &&
		TYPE=pack jfields budget tokens <out >pack &&
		read budget tokens <pack &&
		test "$budget" = $b &&
		test "$tokens" -le $b &&
		TYPE=piece jfields tokens <out >each &&
		test "$(paste -sd+ each | bc)" = "$tokens" || return 1
	done &&
	# a count that is no estimate at all (0, or the bytes) fails here
	(cd repo && kbx context --format=json --budget=4000 parse_config) >out &&
	python3 -c "
import json, sys
for line in open(\"out\"):
    r = json.loads(line)
    if r[\"type\"] == \"piece\":
        n = len(r[\"header\"]) + len(r[\"text\"])
        assert n / 8 < r[\"tokens\"] < n, (r[\"id\"], n, r[\"tokens\"])
"
'

test_expect_success 'a bigger budget packs more' '
	(cd repo && kbx context --format=json --budget=200 parse_config settings) >small &&
	(cd repo && kbx context --format=json --budget=4000 parse_config settings) >big &&
	test $(TYPE=pack jfields pieces <small) -lt $(TYPE=pack jfields pieces <big)
'

test_expect_success 'one piece per definition, no two overlapping; the overlap is counted' '
	(cd repo && kbx context --format=json --budget=8000 ConfigLoader load_file reload_file) >out &&
	no_overlaps <out &&
	TYPE=piece jfields id <out >ids &&
	# the class holds its methods: they are in it, not again apart
	test_grep "^app/config.py#ConfigLoader\$" ids &&
	! grep -q "ConfigLoader.load_file" ids &&
	test $(TYPE=pack jfields overlaps <out) -ge 1
'

test_expect_success 'a body too long for what is left is cut, with a marker' '
	(cd repo && kbx context --format=json --budget=250 --candidates=1 --type=code \
		"parse_config entries read_value key") >out &&
	TYPE=piece jfields id kind cut line end_line def_end_line <out | head -n 1 >first &&
	read id kind cut line end_line def_end_line <first &&
	test "$id" = app/config.py#parse_config &&
	test "$kind" = code && test "$cut" = True &&
	test "$end_line" -lt "$def_end_line" &&
	TYPE=piece jfields text <out | grep -q "kbx: cut here to fit the budget: lines $((end_line + 1))-$def_end_line" &&
	(cd repo && kbx context --budget=250 --candidates=1 --type=code \
		"parse_config entries read_value key") >md &&
	test_grep "^## app/config.py:$line-$end_line  app/config.py#parse_config  (" md &&
	test_grep "kbx: cut here" md &&
	! grep -q "key_59" md
'

test_expect_success 'the whole body when it fits, read from the file' '
	(cd repo && kbx context --budget=4000 --candidates=1 --type=code \
		"parse_config entries read_value key") >md &&
	test_grep "entries\[\"key_59\"\] = read_value(path, \"key_59\", default=59)" md &&
	test_grep "^    return entries\$" md &&
	! grep -q "kbx: cut here" md
'

test_expect_success 'the signatures of callers and callees of the central symbol' '
	(cd repo && kbx context --format=json --budget=4000 --candidates=1 \
		where is the service started with its settings) >out &&
	TYPE=pack jfields central <out >central &&
	echo app/service.py#start_service >expect &&
	test_cmp expect central &&
	TYPE=piece jfields kind id why text <out >pieces &&
	test_grep "^signature app/config.py#parse_config called by start_service def parse_config(path):\$" pieces &&
	(cd repo && kbx context --format=json --budget=4000 --candidates=1 \
		"load_file method returns parse_config") >out &&
	TYPE=piece jfields kind id why <out >pieces &&
	test_grep "^code app/config.py#ConfigLoader.load_file " pieces &&
	test_grep "^signature app/config.py#ConfigLoader.reload_file calls ConfigLoader.load_file\$" pieces &&
	test_grep "^signature app/config.py#parse_config called by ConfigLoader.load_file\$" pieces
'

test_expect_success 'an error entry with its cause and fix, and a document section' '
	(cd repo && kbx context --format=json --budget=4000 "ConfigError: missing key in the settings file") >out &&
	TYPE=piece jfields kind id severity <out >pieces &&
	test_grep "^error py-config-001 error\$" pieces &&
	test_grep "^doc doc-settings -\$" pieces &&
	TYPE=piece jfields cause fix <out | grep -q "lacks a key that parse_config requires.*Add the missing key" &&
	(cd repo && kbx context --budget=4000 "ConfigError: missing key in the settings file") >md &&
	test_grep "^Cause: The settings file lacks a key" md &&
	test_grep "^Fix: Add the missing key" md &&
	test_grep "^Every required key must be present" md
'

test_expect_success 'JSON: every piece and the pack have their fields' '
	(cd repo && kbx context --format=json --budget=4000 parse_config) >out &&
	python3 -c "
import json
recs = [json.loads(l) for l in open(\"out\")]
assert recs[-1][\"type\"] == \"pack\"
want = [\"rank\", \"kind\", \"id\", \"title\", \"heading\", \"path\", \"line\", \"end_line\",
        \"def_end_line\", \"cut\", \"shortened\", \"lang\", \"step\", \"why\", \"score\", \"severity\", \"cause\",
        \"fix\", \"header\", \"text\", \"tokens\"]
for r in recs[:-1]:
    assert r[\"type\"] == \"piece\" and list(r)[1:] == want, list(r)
    assert r[\"step\"] in (\"hybrid\", \"search\", \"neighbours\")
for k in (\"question\", \"budget\", \"tokens\", \"pieces\", \"steps\", \"central\", \"candidates\",
          \"duplicates\", \"overlaps\", \"over_budget\", \"stale\", \"shortened\", \"notes\"):
    assert k in recs[-1], k
assert recs[-1][\"pieces\"] == len(recs) - 1
assert [s[\"step\"] for s in recs[-1][\"steps\"]] == [\"hybrid\", \"search\", \"neighbours\"]
"
'

test_expect_success '--explain prints the plan before the pieces' '
	(cd repo && kbx context --explain --budget=1000 parse_config) >md &&
	head -n 1 md >first &&
	echo "<!-- kbx context plan" >expect &&
	test_cmp expect first &&
	test_grep "^packed     [0-9]* pieces\{0,1\}, [0-9]* of 1000 tokens" md
'

test_expect_success 'when not all fits whole, later pieces are shortened, never while all fit' '
	(cd repo && kbx context --format=json --budget=100000 "ConfigError: missing key in the settings file") >big &&
	TYPE=piece jfields shortened <big | sort -u >flags &&
	echo False >expect &&
	test_cmp expect flags &&
	n=$(grep -c "\"type\":\"piece\"" big) &&
	(cd repo && kbx context --format=json --budget=450 "ConfigError: missing key in the settings file") >small &&
	TYPE=piece jfields shortened <small >flags &&
	test_grep True flags &&
	python3 -c "
import json
recs = [json.loads(l) for l in open(\"small\")]
pieces = [r for r in recs if r[\"type\"] == \"piece\"]
assert not pieces[0][\"shortened\"], pieces[0]
for p in pieces:
    if p[\"shortened\"] and p[\"kind\"] != \"signature\":
        assert \"[kbx: shortened to leave room: \" in p[\"text\"], p[\"text\"]
assert recs[-1][\"shortened\"] == sum(p[\"shortened\"] for p in pieces)
assert recs[-1][\"tokens\"] <= 450
"
'

test_expect_success 'shortened entries keep title and first sentence of the cause, documents their prose' '
	mkdir -p reg2/errors/python reg2/docs waits &&
	for i in 1 2 3 4 5 6
	do
		cat >>reg2/errors/python/waits.yml <<-EOF || return 1
		- id: "py-wait-00$i"
		  error_type: "WaitError$i"
		  severity: "error"
		  pattern: "WaitError$i: gave up waiting"
		  cause: >
		    Variant $i: the worker gave up waiting for the queue. The queue was
		    drained by another consumer before this one could take its item,
		    and the wait had no deadline to end it earlier.
		  fix_template: |
		    Give every wait on the queue a deadline, variant $i.
		    Check the consumer count before waiting.
		EOF
		cat >reg2/docs/waiting-$i.md <<-EOF || return 1
		---
		id: doc-wait-$i
		title: Waiting on queues, part $i
		category: doc
		language: all
		---
		# Waiting on queues, part $i

		## Deadlines

		A worker that waits on a queue should give up after a deadline, part $i.
		Waiting forever hides a consumer that drained the queue.
		Line three of part $i, on how long a deadline should be.
		Line four of part $i, on what to log when it passes.
		Line five of part $i, on retrying after the deadline.
		Line six of part $i, on the consumer count.
		Line seven of part $i, on queues that are never drained.
		Line eight of part $i, on tests that wait.
		EOF
	done &&
	(cd waits && git init -q && kbx registry add ../reg2 >/dev/null 2>&1 && kbx index -q) &&
	(cd waits && kbx context --format=json --budget=500 --type=error "worker gave up waiting on the queue") >pack &&
	(cd waits && kbx context --format=json --budget=400 --type=doc "waiting on queues deadline") >>pack &&
	python3 -c "
import json
recs = [json.loads(l) for l in open(\"pack\")]
pieces = [r for r in recs if r[\"type\"] == \"piece\"]
errs = [p for p in pieces if p[\"shortened\"] and p[\"kind\"] == \"error\"]
docs = [p for p in pieces if p[\"shortened\"] and p[\"kind\"] == \"doc\"]
assert errs and docs, [(p[\"kind\"], p[\"shortened\"]) for p in pieces]
for p in errs:
    lines = p[\"text\"].splitlines()
    assert lines[0].startswith(\"WaitError\") and lines[0].endswith(\"(error)\"), lines
    assert lines[1].startswith(\"Cause: Variant \") and lines[1].endswith(\"the queue. ...\"), lines
    assert lines[2] == \"[kbx: shortened to leave room: the rest of the cause and the fix left out]\", lines
    assert \"Fix:\" not in p[\"text\"]
for p in docs:
    lines = p[\"text\"].splitlines()
    assert lines[0].startswith(\"Waiting on queues, part \") and lines[0].endswith(\" / Deadlines\"), lines
    assert not any(l.startswith(\"#\") for l in lines), lines
    assert lines[1].startswith(\"A worker that waits on a queue\"), lines
    assert lines[-1].startswith(\"[kbx: shortened to leave room: \"), lines
assert all(r[\"tokens\"] <= r[\"budget\"] for r in recs if r[\"type\"] == \"pack\")
"
'

test_expect_success '--explain: text of the question cannot end the plan comment' '
	(cd repo && kbx context --explain --budget=1000 "code similar to parse --> the config") >md &&
	test_grep "searched for parse - -> the config" md &&
	test $(grep -c -- "-->" md) = 1
'

test_expect_success 'the question from standard input, within a size limit' '
	(cd repo && kbx context --format=json --budget=1000 parse_config settings) >args &&
	(cd repo && echo parse_config settings | kbx context --format=json --budget=1000 -) >stdin &&
	TYPE=piece jfields id <args >expect &&
	TYPE=piece jfields id <stdin >actual &&
	test_cmp expect actual &&
	test -s actual &&
	python3 -c "print(\"parse_config \" * 90000)" >huge &&
	(cd repo && test_expect_code 2 kbx context - <../huge) 2>err &&
	test_grep "more than the 1048576 kbx context takes" err &&
	(cd repo && printf "  \n" | test_expect_code 2 kbx context -) 2>err &&
	test_grep "the question is empty" err
'

test_expect_success 'exit codes as kbx search: 1 for nothing, 2 for usage, 3 with no index' '
	(cd repo && test_expect_code 1 kbx context --type=error zzyzx qwxv) >out 2>err &&
	test_must_be_empty out &&
	(cd repo && test_expect_code 2 kbx context --budget=10 parse_config) 2>err &&
	test_grep "budget must be from" err &&
	(cd repo && test_expect_code 2 kbx context --type=nonsense parse_config) 2>err &&
	test_grep "unknown --type" err &&
	(cd repo && test_expect_code 2 kbx context) 2>err &&
	mkdir -p elsewhere && (cd elsewhere && GIT_CEILING_DIRECTORIES=$PWD test_expect_code 3 kbx context parse_config)
'

test_expect_success 'a symbolic link put in place of an indexed file is not read' '
	test_when_finished "rm -f repo/app/helpers.py && cp keep-helpers.py repo/app/helpers.py" &&
	(cd repo && kbx context --format=json --budget=4000 --type=code format_banner name) >before &&
	TYPE=piece jfields id <before | grep -q "app/helpers.py#format_banner" &&
	cp repo/app/helpers.py keep-helpers.py &&
	rm repo/app/helpers.py &&
	ln -s "$PWD/outside/helpers.py" repo/app/helpers.py &&
	(cd repo && kbx context --format=json --budget=4000 --type=code format_banner name) >out 2>err &&
	! grep -q SECRET_OUTSIDE out &&
	! TYPE=piece jfields id <out | grep -q "app/helpers.py" &&
	test_grep "cannot read .app/helpers.py.: a symbolic link" err &&
	test $(TYPE=pack jfields stale <out) -ge 1
'

test_expect_success 'a file shortened since it was indexed gives no piece, and a note' '
	(cd repo && kbx context --format=json --budget=4000 --candidates=1 --type=code \
		"parse_config entries read_value key") >before &&
	TYPE=piece jfields id <before | grep -q "^app/config.py#parse_config\$" &&
	head -n 14 repo/app/config.py >short &&
	cp short repo/app/config.py &&
	(cd repo && kbx context --format=json --budget=4000 --candidates=1 --type=code \
		"parse_config entries read_value key") >out 2>err &&
	! TYPE=piece jfields id <out | grep -q "^app/config.py#parse_config\$" &&
	test_grep "app/config.py. has changed since it was indexed: it has 14 lines" err &&
	test $(TYPE=pack jfields stale <out) -ge 1
'

# A constructor is "constructor" to the index in Java and TypeScript, and
# a googletest case the class and method its macro makes: names the
# definition's lines never hold.  Here the macro is the file's own.
test_expect_success 'set up definitions whose names their lines do not hold' '
	mkdir -p made/src &&
	cat >made/src/Tailer.java <<-\EOF &&
	public class Tailer {
	    private final int delay;

	    /** Creates a tailer with a delay. */
	    public Tailer(int delay) {
	        this.delay = delay;
	    }
	}
	EOF
	cat >made/src/follower.ts <<-\EOF &&
	export class Follower {
	    private interval: number;

	    constructor(interval: number) {
	        this.interval = interval;
	    }
	}
	EOF
	cat >made/src/env_test.cc <<-\EOF &&
	#define TEST_F(fixture, name) void fixture##_##name##_Test()

	class EnvTest {
	 protected:
	  int backoff_ = 3;
	};

	TEST_F(EnvTest, ReadsBackoff) {
	  int waited = backoff_ * 2;
	  (void)waited;
	}
	EOF
	(cd made && git init -q && kbx index -q)
'

test_expect_success 'a constructor and a test case a macro makes are packed from a file as indexed' '
	(cd made && kbx context --format=json --budget=2000 --type=code "tailer delay" &&
	 kbx context --format=json --budget=2000 --type=code "follower interval" &&
	 kbx context --format=json --budget=2000 --type=code "backoff waited") >out 2>err &&
	TYPE=piece jfields id line end_line <out >pieces &&
	grep "^src/Tailer.java#Tailer.constructor 5 7\$" pieces &&
	grep "^src/follower.ts#Follower.constructor 4 6\$" pieces &&
	grep "^src/env_test.cc#EnvTest_ReadsBackoff_Test.TestBody 8 11\$" pieces &&
	! test_grep "changed since it was indexed" err &&
	TYPE=pack jfields stale <out >stale &&
	printf "0\n0\n0\n" >expect &&
	test_cmp expect stale
'

test_expect_success 'in a file edited since, a definition the edit moved is left out, one it left in place is not' '
	cp made/src/Tailer.java made/src/follower.ts made/src/env_test.cc . &&
	test_when_finished "cp Tailer.java follower.ts made/src/ && cp env_test.cc made/src/" &&
	# a line above the constructor: its lines are no longer its own
	{ echo "// moved down" && cat Tailer.java; } >made/src/Tailer.java &&
	# a method after the constructor: it is where it was (the class
	# is not)
	sed "s/^}\$/    wait(): number { return this.interval; }\n}/" follower.ts >made/src/follower.ts &&
	# the test case one line longer: it ends elsewhere
	sed "s/^  (void)waited;\$/  (void)waited;\n  (void)waited;/" env_test.cc >made/src/env_test.cc &&
	(cd made && kbx context --format=json --budget=2000 --type=code "tailer delay" &&
	 kbx context --format=json --budget=2000 --type=code "follower private interval" &&
	 kbx context --format=json --budget=2000 --type=code "backoff waited") >out 2>err &&
	TYPE=piece jfields id <out >ids &&
	! grep "^src/Tailer.java#" ids &&
	grep "^src/follower.ts#Follower.constructor\$" ids &&
	! grep "^src/env_test.cc#EnvTest_ReadsBackoff_Test" ids &&
	test_grep "src/Tailer.java. has changed since it was indexed: .Tailer.constructor. is no longer at lines 5-7" err &&
	test_grep "src/env_test.cc. has changed since it was indexed: .EnvTest_ReadsBackoff_Test.TestBody. is no longer at lines 8-11" err &&
	test_grep "src/follower.ts. has changed since it was indexed: .Follower. is no longer at lines 1-7" err &&
	! test_grep "Follower.constructor. is no longer" err &&
	test $(TYPE=pack jfields stale <out | paste -sd+ | bc) -ge 2
'

test_expect_success 'a long first body takes at most half the budget when more would not fit' '
	mkdir long &&
	{
		echo "def tally_votes(ballots):" &&
		echo "    counts = {}" &&
		i=0 &&
		while test $i -lt 120; do
			echo "    counts[\"choice_$i\"] = ballots.count(\"choice_$i\")" &&
			i=$((i + 1))
		done &&
		echo "    return counts" &&
		echo &&
		echo &&
		echo "def tally_winner(ballots):" &&
		echo "    return max(tally_votes(ballots).items())" &&
		echo &&
		echo &&
		echo "def tally_turnout(ballots, voters):" &&
		echo "    return len(ballots) / voters"
	} >long/votes.py &&
	(cd long && kbx index -q &&
	 kbx context --format=json --budget=800 --type=code "tally the votes of the ballots" >../out) &&
	TYPE=piece jfields id kind cut tokens <out >pieces &&
	head -n 1 pieces >first &&
	read id kind cut tokens <first &&
	test "$id" = votes.py#tally_votes && test "$kind" = code && test "$cut" = True &&
	test "$tokens" -le 400 &&
	test_grep "^votes.py#tally_winner " pieces &&
	test_grep "^votes.py#tally_turnout " pieces &&
	# with room for everything, the body is whole
	(cd long && kbx context --format=json --budget=8000 --type=code "tally the votes of the ballots" >../out) &&
	TYPE=piece jfields id cut <out >pieces &&
	test_grep "^votes.py#tally_votes False\$" pieces
'

test_expect_success 'the best of each kind comes after the first piece, ahead of more code' '
	mkdir -p mixed/app reg3/docs &&
	cat >reg3/docs/retries.md <<-\EOF &&
	---
	id: doc-retries
	title: Retry policy
	category: doc
	language: all
	---
	# Retry policy

	Wait longer after each failed attempt, doubling the wait each
	time, and give up after five attempts.
	EOF
	i=0 &&
	while test $i -lt 30; do
		{
			echo "def retry_request_$i(request, pause=$i):" &&
			echo "    \"\"\"Retry the request after a pause when the call fails.\"\"\"" &&
			echo "    return send_request(request, pause)" &&
			echo &&
			echo
		} >>mixed/app/client.py &&
		i=$((i + 1))
	done &&
	(cd mixed && git init -q && kbx registry add ../reg3 >/dev/null 2>&1 && kbx index -q &&
	 kbx search --format=json -n 60 "retry the request after a pause when the call fails" >../all &&
	 kbx context --format=json --budget=400 "retry the request after a pause when the call fails" >../out) &&
	# the search ranks the document below more code than the budget holds
	TYPE=hit jfields id <all >ranked &&
	grep -n "^doc-retries" ranked >at &&
	test "$(cut -d: -f1 at)" -gt 12 &&
	TYPE=piece jfields id kind <out >pieces &&
	sed -n 2p pieces >second &&
	echo "doc-retries doc" >expect &&
	test_cmp expect second &&
	test "$(grep -c "^app/client.py#retry_request_" pieces)" -ge 3
'

test_expect_success 'a question the graph answers keeps its order' '
	(cd mixed && kbx context --format=json --budget=400 "what calls send_request" >../out) &&
	TYPE=pack jfields traversal <out >traversal &&
	echo callers >expect &&
	test_cmp expect traversal &&
	TYPE=piece jfields kind <out >kinds &&
	sed -n 2p kinds >second &&
	echo signature >expect &&
	test_cmp expect second
'

test_done
