#!/bin/sh

test_description='search tokens and the builtin embedding

The tokenizer of lib/text/tokenize.c (identifiers split at case, "_",
dots and digits, stop words dropped, words stemmed, compounds, UTF-8,
long tokens cut) and the builtin embedding provider (deterministic, of
unit length, nearer for texts about the same thing), through
tests/unit/embed-tool.'

. "$(dirname "$0")"/test-lib.sh

tool="$KBX_TEST_UNIT/embed-tool"

# The tokens of one text, on one line: "w stem" and "c compound" items.
tokens () {
	"$tool" --tokens "$1" >tokens.out &&
	sed -e '/^$/d' tokens.out | tr '\n' ' ' | sed -e 's/ $//' && echo
}

check_tokens () {
	printf '%s\n' "$2" >expect &&
	tokens "$1" >actual &&
	test_cmp expect actual
}

test_expect_success 'camelCase and dotted names: parts, then the compound' '
	check_tokens "UserService.create_user" \
		"w user w servic c userservice w creat w user c create_user"
'

test_expect_success 'a run of capitals ends before the capital of the next word' '
	check_tokens HTTPServer "w http w server c httpserver"
'

test_expect_success 'digits stay with the letters before them' '
	check_tokens getHTTP2Client "w get w http2 w client c gethttp2client" &&
	check_tokens "md5sum utf8mb4" "w md5 w sum c md5sum w utf8 w mb4 c utf8mb4"
'

test_expect_success 'a plural of capitals is one word' '
	check_tokens "URLs parseIDs" "w url w pars w id c parseids"
'

test_expect_success 'snake_case keeps its underscores in the compound, not outer ones' '
	check_tokens "__init__ _private_name x86_64" \
		"w init w privat w name c private_name w x86 w 64 c x86_64"
'

test_expect_success 'dotted paths and file paths give their names' '
	check_tokens "os.path.join" "w os w path w join" &&
	check_tokens "File \"/srv/app/db/session.py\", line 42, in connect" \
		"w file w srv w app w db w session w py w line w 42 w connect"
'

test_expect_success 'words are stemmed and lower-cased' '
	check_tokens "Connections FAILING connected" "w connect w fail w connect"
'

# Each of Snowball English's steps, through lib/text/stem.c, which may
# reach the module's state directly (./configure says which way).
test_expect_success 'the stems are Snowball English stems' '
	check_tokens "generously hopefulness relational conditional happily arguing ponies caresses" \
		"w generous w hope w relat w condit w happili w argu w poni w caress" &&
	check_tokens "internationalization" "w internation"
'

test_expect_success 'stop words and one-letter words are dropped' '
	check_tokens "The user is not in a database, is it?" "w user w databas" &&
	check_tokens "don'\''t x y z" "" 
'

test_expect_success 'short numbers stay, addresses and hashes go' '
	check_tokens "error 404 on port 8080 at 0x7ffd5e8c in 3f2a9c1d4e id 1234567 E0382 0x1f" \
		"w error w 404 w port w 8080 w id w e0382 w 0x1f"
'

test_expect_success 'UTF-8 bytes are letters; only ASCII is lower-cased' '
	check_tokens "naïveCafé Größe" "w naïve w café c naïvecafé w größe"
'

test_expect_success 'long tokens are cut to 64 bytes' '
	long=$(printf "%070d" 0 | tr 0 a) &&
	tokens "$long" >actual &&
	echo "w $(printf "%064d" 0 | tr 0 a)" >expect &&
	test_cmp expect actual
'

test_expect_success 'a long UTF-8 token is not cut inside a character' '
	e=$(printf "\303\251") &&
	word=a && i=0 &&
	while test $i -lt 40
	do
		word=$word$e && i=$((i + 1)) || return 1
	done &&
	"$tool" --tokens "$word" >out &&
	sed -e "/^$/d" -e "s/^w //" out >token &&
	test $(wc -c <token) = 64 &&
	head -c 63 token >cut &&
	printf "a" >expect && i=0 &&
	while test $i -lt 31
	do
		printf "$e" >>expect && i=$((i + 1)) || return 1
	done &&
	test_cmp expect cut
'

test_expect_success 'no tokens in punctuation and white space' '
	"$tool" --tokens " ... --- ()[]{} " "" >out &&
	test_write_lines "" "" >expect &&
	test_cmp expect out
'

test_expect_success 'every byte value is safe; bytes >= 0x80 are letters' '
	printf "\000\001abc_DEF\n\t.x \377\376 \300" >bytes &&
	"$tool" --tokens --stdin --whole <bytes >out &&
	printf "w abc\nw def\nc abc_def\nw \377\376\n\n" >expect &&
	test_cmp expect out
'

# ---- the builtin embedding ----

test_expect_success 'builtin: identity and dimension' '
	"$tool" --identity --print=none >out &&
	grep -E "^identity builtin/words-[0-9a-f]{16}/356$" out &&
	grep "^dim 356$" out &&
	"$tool" --identity --print=none --dim=384 >out &&
	grep -E "^identity builtin/words-[0-9a-f]{16}/484$" out &&
	"$tool" --identity --print=none --model=hash >out &&
	test_write_lines "identity builtin/v1/256" "dim 256" >expect &&
	test_cmp expect out &&
	"$tool" --identity --print=none --model=hash --dim=384 >out &&
	test_write_lines "identity builtin/v1/384" "dim 384" >expect &&
	test_cmp expect out
'

test_expect_success 'builtin: an unknown model is refused' '
	test_expect_code 2 "$tool" --model=glove x 2>err &&
	test_grep "unknown model '\''glove'\''; use words" err
'

test_expect_success 'builtin: missing or damaged word vectors are named, with what to do' '
	test_expect_code 2 env KBX_WORDS_PATH="$PWD/none.bin" "$tool" x 2>err &&
	test_grep "none.bin" err &&
	test_grep "search.model=hash" err &&
	printf "KBXWORDS\001\000\000\000" >short.bin &&
	head -c 100 /dev/zero >>short.bin &&
	test_expect_code 2 env KBX_WORDS_PATH="$PWD/short.bin" "$tool" x 2>err &&
	test_grep "is not a word-vector file of this kbx" err &&
	head -c 64 "$KBX_WORDS_PATH" >cut.bin &&
	test_expect_code 2 env KBX_WORDS_PATH="$PWD/cut.bin" "$tool" x 2>err &&
	test_grep "is not a word-vector file" err
'

# The offsets of the words are checked where a query reads them, not
# all at open: offsets past the pool make those words unknown, never a
# read outside the file (the sanitizer build says so).
test_expect_success 'builtin: damaged word offsets are words not found' '
	cp "$KBX_WORDS_PATH" offsets.bin &&
	head -c 4096 /dev/zero | tr "\\000" "\\377" |
		dd of=offsets.bin bs=1 seek=64 conv=notrunc 2>/dev/null &&
	test_must_fail cmp -s "$KBX_WORDS_PATH" offsets.bin &&
	KBX_WORDS_PATH="$PWD/offsets.bin" "$tool" --print=norms \
		"the request timed out" "zebra" "" >out &&
	test_line_count = 3 out
'

# Words that the hashing cannot relate, since they share no letters or
# stems: the learned vectors were trained on documentation where they
# are said of the same things.
test_expect_success 'builtin: learned vectors relate words of one meaning' '
	"$tool" --print=cosine "the request timed out" "deadline expired" \
		"colour of the button" >words &&
	"$tool" --model=hash --print=cosine "the request timed out" "deadline expired" \
		"colour of the button" >hash &&
	near=$(awk "NR == 1 { print \$2 }" words) &&
	far=$(awk "NR == 2 { print \$2 }" words) &&
	hashed=$(awk "NR == 1 { print \$2 }" hash) &&
	awk -v a="$near" -v b="$far" -v h="$hashed" "BEGIN { exit !(a > b + 0.1 && a > h + 0.1) }"
'

test_expect_success 'builtin: a dimension out of range is refused' '
	test_expect_code 2 "$tool" --dim=8 x 2>err &&
	test_grep "dimension 8 is out of range" err
'

test_expect_success 'builtin: an unknown provider is refused' '
	test_expect_code 2 "$tool" --provider=magic x 2>err &&
	test_grep "unknown embedding provider '\''magic'\''" err
'

test_expect_success 'builtin: the same text gives the same vector' '
	"$tool" "def connect(host, port): return socket.create_connection((host, port))" \
		"unrelated words" >one &&
	"$tool" "unrelated words" \
		"def connect(host, port): return socket.create_connection((host, port))" >two &&
	sed -n 1p one >a && sed -n 2p two >b && test_cmp a b &&
	test $(wc -w <a) = 356
'

test_expect_success 'builtin: queries and documents are treated alike' '
	"$tool" "retry the request" >doc &&
	"$tool" --query "retry the request" >query &&
	test_cmp doc query
'

test_expect_success 'builtin: vectors have unit length, an empty text a zero one' '
	"$tool" --print=norms "ConnectionRefusedError: [Errno 111]" "" "  ...  " "the" \
		"één" >norms &&
	test_write_lines 1.0000 0.0000 0.0000 0.0000 1.0000 >expect &&
	test_cmp expect norms
'

test_expect_success 'builtin: texts about the same thing are nearer than unrelated ones' '
	"$tool" --print=cosine \
		"psycopg2.OperationalError: could not connect to server: Connection refused" \
		"the database connection was refused by the server" \
		"parse the YAML configuration file and return a dict" >cos &&
	near=$(sed -n "s/^2 //p" cos) && far=$(sed -n "s/^3 //p" cos) &&
	echo "near $near far $far" &&
	awk -v a="$near" -v b="$far" "BEGIN { exit !(a > b + 0.1) }"
'

test_expect_success 'builtin: identifiers meet their words, misspelt words their n-grams' '
	"$tool" --print=cosine "create_user" "def createUser(name):" "def delete_group(gid):" \
		>cos &&
	near=$(sed -n "s/^2 //p" cos) && far=$(sed -n "s/^3 //p" cos) &&
	awk -v a="$near" -v b="$far" "BEGIN { exit !(a > b + 0.2) }" &&
	"$tool" --print=cosine "authentification" "authentication failed" "disk is full" \
		>cos &&
	near=$(sed -n "s/^2 //p" cos) && far=$(sed -n "s/^3 //p" cos) &&
	awk -v a="$near" -v b="$far" "BEGIN { exit !(a > b + 0.2) }"
'

test_done
