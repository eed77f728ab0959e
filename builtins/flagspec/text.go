package flagspec

import "strings"

// sort sorts files to stdout. -o/--output writes a file (the output file
// may be one of the inputs), --compress-program runs a program, and
// -T/--temporary-directory writes temporary files into a chosen directory.
var sortSpec = &spec{
	allow: `-b --ignore-leading-blanks -d --dictionary-order -f --ignore-case -g --general-numeric-sort
		-i --ignore-nonprinting -M --month-sort -h --human-numeric-sort -n --numeric-sort -R
		--random-sort --random-source=r -r --reverse --sort= -V --version-sort --batch-size=
		-c --check? -C -k= --key= -m --merge -s --stable -S= --buffer-size= -t= --field-separator=
		--parallel= -u --unique -z --zero-terminated --debug`,
	deny: []denial{
		{`--files0-from=r`, files0FromWhy},
		{`-o|--output=w`, "writes its output to a file"},
		{`--compress-program=x`, "runs a program to compress temporary files"},
		{`-T|--temporary-directory=w`, "writes temporary files into a chosen directory"},
	},
	ops: opsRead,
}

// sortObsoleteKeys returns sort's argv with the end of each obsolete key
// (sort +1 -2: fields 2 to 2) left out. GNU sort reads "+POS1" as a key
// when it is a valid position and as a file operand otherwise, and a
// "-POS2" right after it as the key's end (it has no option that is a
// digit: alone, -2 is an invalid option and sort stops). "+POS1" stays an
// operand, so it is judged as a read of a file of that name, the most it
// can be (checked with GNU coreutils 9.1, with and without
// _POSIX2_VERSION=200112).
func sortObsoleteKeys(argv []string) []string {
	var out []string
	for i := 1; i < len(argv); i++ {
		if i+1 < len(argv) && obsoleteKeyPos(argv[i], '+') && obsoleteKeyPos(argv[i+1], '-') {
			if out == nil {
				out = append([]string(nil), argv[:i+1]...)
			} else {
				out = append(out, argv[i])
			}
			i++
			continue
		}
		if out != nil {
			out = append(out, argv[i])
		}
	}
	if out == nil {
		return argv
	}
	return out
}

// obsoleteKeyPos reports whether s is lead followed by a field number, an
// optional "." and character number, and ordering letters (+1, -2, +0.3bn).
func obsoleteKeyPos(s string, lead byte) bool {
	if len(s) < 2 || s[0] != lead || s[1] < '0' || s[1] > '9' {
		return false
	}
	i := 1
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return strings.Trim(s[i:], "bdfgiMhnRrV") == ""
}

// uniq filters adjacent lines. Its second operand is an output file.
var uniqSpec = &spec{
	allow: `-c --count -d --repeated -D --all-repeated? -f= --skip-fields= --group? -i --ignore-case
		-s= --skip-chars= -u --unique -z --zero-terminated -w= --check-chars=`,
	num:    true,
	ops:    opsHook,
	maxOps: 0,
	check: func(st *state) {
		for i, o := range st.ops {
			switch i {
			case 0:
				st.read(o)
			case 1:
				st.write(o)
				st.fail("uniq: operand " + printable(o) + " is an output file")
			default:
				st.fail("uniq: extra operand " + printable(o))
			}
		}
	},
}

// jq filters JSON. The first operand is the filter; the rest are files
// read (or, after --args/--jsonargs, values). jq cannot write files or run
// programs, but "import PATH as $x" and "include" load other files (a
// data import reads any .json file, such as .docker/config.json), so a
// filter using them, or read from a file with -f, is not read-only.
// --slurpfile and --rawfile read files, reported in Reads.
var jqSpec = &spec{
	noAbbrev: true,
	allow: `-c --compact-output -n --null-input -r --raw-output -j --join-output -a --ascii-output
		-s --slurp -R --raw-input -C --color-output -M --monochrome-output -S --sort-keys --tab
		--indent= --unbuffered --stream --stream-errors --seq -e --exit-status -L=
		--arg== --argjson== --slurpfile==r --rawfile==r --args@a --jsonargs@a --raw-output0
		-h -V --build-configuration -0`,
	deny: []denial{{`-f=r --from-file=r`, "reads its filter from a file, which may import other files"}},
	ops:  opsHook,
	check: func(st *state) {
		if len(st.ops) == 0 {
			return
		}
		filter := st.ops[0]
		switch {
		case strings.Contains(filter, Dynamic):
			st.fail("jq: the filter is only known at run time")
		case strings.Contains(filter, "import") || strings.Contains(filter, "include") ||
			strings.Contains(filter, "modulemeta") || strings.Contains(filter, "get_search_list"):
			st.fail("jq: the filter loads modules or data files")
		}
		if st.has('a') {
			return // operands after --args are values
		}
		for _, o := range st.ops[1:] {
			st.read(o)
		}
	},
}

// sed edits streams. Read-only only without -i/--in-place (then it is a
// filesystem command), without -f/--file (the script file is not seen
// here), and when the script has no w/W (write a file) or e (execute)
// command and no s///w or s///e flag. r/R read a file, reported in Reads.
var sedSpec = &spec{
	allow: `-n --quiet --silent -e=@s --expression=@s -E -r --regexp-extended --posix
		-s --separate -u --unbuffered -z --null-data -l= --line-length= --debug --sandbox
		-b --binary --follow-symlinks`,
	deny: []denial{
		{`-i?@i --in-place?@i`, "edits files in place"},
		{`-f=r@f --file=r@f`, "reads its script from a file, which may write files or run commands"},
	},
	ops:   opsHook,
	check: checkSed,
	// The script's e commands run shell commands: a word only known at
	// run time where an option may stand may be the script.
	hasCmd: true,
}

func checkSed(st *state) {
	files := st.ops
	if !st.has('s') && !st.has('f') {
		if len(files) == 0 {
			st.fail("sed: no script")
			return
		}
		checkSedScript(st, files[0], indexOf(st.argv, files[0]))
		files = files[1:]
	} else {
		for _, mv := range st.vals {
			if mv.mark == 's' {
				checkSedScript(st, mv.val, mv.idx)
			}
			if mv.mark == 'f' && (mv.val == "-" || mv.val == "/dev/stdin" || strings.HasPrefix(mv.val, "/dev/fd/") ||
				strings.Contains(mv.val, Dynamic)) {
				st.codeWord(mv.idx)
				st.runsUnknown("sed -f " + printable(mv.val) + ": the script is not in argv and may run commands")
			}
		}
	}
	for _, f := range files {
		st.read(f)
		if st.has('i') {
			st.write(f)
		}
	}
	if st.has('i') {
		// In-place sed is a filesystem command (docs/shell.md) when its
		// script neither runs commands nor hides its targets.
		st.spec = sedInPlace
		if st.has('f') || st.execs {
			st.unknown = true
		}
	}
}

// sedInPlace marks a sed -i call as a filesystem command.
var sedInPlace = &spec{fs: true}

// checkSedScript scans a sed script for commands that write or execute.
// idx is the argv index of the word holding the script. The e command's
// shell command is recorded (Verdict.Commands); the whole script is read
// so that a w command does not hide a later e.
func checkSedScript(st *state, script string, idx int) {
	if strings.Contains(script, Dynamic) {
		st.fail("sed: the script is only known at run time")
		st.execs = true
		st.codeWord(idx)
		st.runsUnknown("sed: the script is only known at run time and may run commands")
		return
	}
	// GNU sed reads a delimiter inside a bracket expression ([/]) as a
	// literal; a naive reading ends the regex there. The script is scanned
	// both ways and is read-only only if both readings are: a crafted
	// script cannot hide a w command in the difference. The first (GNU)
	// reading records the files read and written.
	for _, brackets := range []bool{true, false} {
		p := sedParser{s: script, brackets: brackets, st: st, record: brackets, idx: idx}
		for !p.done() {
			if why := p.command(); why != "" {
				st.fail("sed: " + why)
				if p.fatal || strings.HasPrefix(why, "bad ") || strings.HasPrefix(why, "unterminated ") {
					if st.execs || strings.Contains(script[min(p.i, len(script)):], "e") {
						// An e command may hide in what could not be read.
						st.codeWord(idx)
						st.runsUnknown("sed: the script could not be read to its end and may run commands")
					}
					break
				}
			}
		}
	}
}

type sedParser struct {
	s        string
	i        int
	brackets bool // a regex's bracket expressions may contain the delimiter
	st       *state
	record   bool // report r/w files to st
	idx      int  // argv index of the script
	// fatal: the last reason is a parse failure, the rest cannot be read.
	fatal bool
}

func (p *sedParser) read(f string) {
	if p.record {
		p.st.read(f)
	}
}

func (p *sedParser) write(f string) {
	// An allow rule spells out a script that writes a file (sed:* does
	// not cover sed -n 'w /tmp/x'), as it spells out one that runs code.
	if f != "/dev/null" && f != "/dev/stdout" && f != "/dev/stderr" {
		p.st.codeWord(p.idx)
	}
	if p.record {
		p.st.write(f)
	}
}

func (p *sedParser) done() bool {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', ';':
			p.i++
		default:
			return false
		}
	}
	return true
}

func (p *sedParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *sedParser) skipBlanks() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// toEOL returns the rest of the line (a file name, label or text).
func (p *sedParser) toEOL() string {
	p.skipBlanks()
	j := strings.IndexByte(p.s[p.i:], '\n')
	if j < 0 {
		j = len(p.s) - p.i
	}
	w := p.s[p.i : p.i+j]
	p.i += j
	return w
}

// address skips one address: N, $, /re/, \cREc, first~step, +N, ~N.
func (p *sedParser) address() string {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		for c := p.peek(); c >= '0' && c <= '9' || c == '~'; c = p.peek() {
			p.i++
		}
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		if c == '\\' {
			p.i++
			c = p.peek()
			if c == 0 || c == '\n' || c == '\\' || c >= 0x80 {
				return "bad address delimiter"
			}
		}
		p.i++
		if !p.regex(c) {
			return "unterminated address"
		}
		for c := p.peek(); c == 'I' || c == 'M'; c = p.peek() {
			p.i++
		}
	case c == '+' || c == '~':
		p.i++
		for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
			p.i++
		}
	}
	return ""
}

// delimited skips to the unescaped delimiter d, past it.
func (p *sedParser) delimited(d byte) bool {
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '\\' {
			p.i += 2
			continue
		}
		if c == '\n' && d != '\n' {
			return false
		}
		p.i++
		if c == d {
			return true
		}
	}
	return false
}

// command parses one command; it returns a reason when the command writes,
// executes or cannot be parsed.
func (p *sedParser) command() string {
	if p.peek() == '#' {
		p.toEOL()
		return ""
	}
	if why := p.address(); why != "" {
		return why
	}
	p.skipBlanks()
	if p.peek() == ',' {
		p.i++
		p.skipBlanks()
		if why := p.address(); why != "" {
			return why
		}
	}
	p.skipBlanks()
	for p.peek() == '!' {
		p.i++
		p.skipBlanks()
	}
	c := p.peek()
	p.i++
	switch c {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		return ""
	case 'l', 'L', 'q', 'Q':
		p.skipBlanks()
		for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
			p.i++
		}
		return ""
	case ':', 'b', 't', 'T', 'v':
		// GNU sed ends a label (and v's version) at a blank, ";", newline
		// or "}", and parses what follows as further commands (":x w f"
		// writes f). Ending it there too is the strict reading: the rest
		// is scanned as commands.
		p.skipBlanks()
		for p.i < len(p.s) && strings.IndexByte(" \t\n;}", p.s[p.i]) < 0 {
			p.i++
		}
		return ""
	case 'a', 'i', 'c':
		// text to the end of the line; backslash-newline continues it
		for p.i < len(p.s) {
			if p.s[p.i] == '\\' {
				p.i += 2
				continue
			}
			if p.s[p.i] == '\n' {
				break
			}
			p.i++
		}
		return ""
	case 'r', 'R':
		p.read(p.toEOL())
		return ""
	case 'w', 'W':
		f := p.toEOL()
		p.write(f)
		return "command " + string(c) + " writes the file " + printable(f)
	case 'e':
		p.st.execs = true
		p.st.fail("sed: command e runs a shell command")
		if cmd := p.commandText(); strings.TrimSpace(cmd) != "" {
			p.st.command("sed e", cmd, p.idx)
		} else {
			p.st.codeWord(p.idx)
			p.st.runsData("sed: command e without a command runs the pattern space as a command")
		}
		return "command e runs a shell command"
	case 'y':
		d := p.peek()
		if d == 0 || d == '\\' || d == '\n' || d >= 0x80 {
			return "bad y command"
		}
		p.i++
		if !p.delimited(d) || !p.delimited(d) {
			return "unterminated y command"
		}
		return ""
	case 's':
		d := p.peek()
		if d == 0 || d == '\\' || d == '\n' || d >= 0x80 {
			return "bad s command"
		}
		p.i++
		if !p.regex(d) || !p.delimitedRepl(d) {
			return "unterminated s command"
		}
		for p.i < len(p.s) {
			switch f := p.s[p.i]; {
			case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9':
				p.i++
			case f == 'e':
				p.st.execs = true
				p.st.fail("sed: the s///e flag runs the pattern space as a command")
				p.st.codeWord(p.idx)
				p.st.runsData("sed: the s///e flag runs the pattern space as a command")
				p.i++
				continue
			case f == 'w':
				p.i++
				w := p.toEOL()
				p.write(w)
				return "the s///w flag writes the file " + printable(w)
			default:
				return ""
			}
		}
		return ""
	}
	p.fatal = true
	return "command " + printable(string(c)) + " is not in the read-only vocabulary"
}

// commandText reads the e command's shell command: the rest of the line,
// continued over lines that end with a backslash.
func (p *sedParser) commandText() string {
	p.skipBlanks()
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '\\' && p.i+1 < len(p.s) && p.s[p.i+1] == '\n' {
			b.WriteByte('\n')
			p.i += 2
			continue
		}
		if c == '\n' {
			break
		}
		b.WriteByte(c)
		p.i++
	}
	return b.String()
}

// regex skips a regular expression to the unescaped delimiter d, past it.
// With p.brackets, a bracket expression ([...], with [:class:], [.x.] and
// [=x=] inside) is skipped whole, as GNU sed does. A regex may span
// escaped newlines.
func (p *sedParser) regex(d byte) bool {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\\':
			p.i += 2
			continue
		case c == '[' && p.brackets:
			if !p.bracket() {
				return false
			}
			continue
		}
		p.i++
		if c == d {
			return true
		}
	}
	return false
}

// bracket skips a bracket expression starting at p.s[p.i] == '['.
func (p *sedParser) bracket() bool {
	j := p.i + 1
	if j < len(p.s) && p.s[j] == '^' {
		j++
	}
	if j < len(p.s) && p.s[j] == ']' {
		j++
	}
	for j < len(p.s) {
		c := p.s[j]
		if c == ']' {
			p.i = j + 1
			return true
		}
		if c == '[' && j+1 < len(p.s) && (p.s[j+1] == ':' || p.s[j+1] == '.' || p.s[j+1] == '=') {
			end := "]"
			end = string(p.s[j+1]) + end
			k := strings.Index(p.s[j+2:], end)
			if k < 0 {
				return false
			}
			j += 2 + k + 2
			continue
		}
		j++
	}
	return false
}

// delimitedRepl is delimited, but a replacement may contain escaped newlines.
func (p *sedParser) delimitedRepl(d byte) bool {
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '\\' {
			p.i += 2
			continue
		}
		p.i++
		if c == d {
			return true
		}
	}
	return false
}

// awk runs a program. It is read-only only when the program text is static
// and has none of: system (runs commands), a pipe to or from a command (a
// "|" token, awkPipes: a "|" in a string, a regular expression literal or a
// comment is text),
// an output redirection (print > file: a ">" in a print or printf statement
// outside its parentheses, awkOutputRedirect; any other ">" is a comparison),
// getline (reads commands or files), close/fflush on named streams,
// ARGV/ARGC (changing them reads other files), "/inet" special files, and
// any "@" (gawk's @load, @include and indirect calls: f="sys" "tem"; @f()).
// -f (program file), gawk's extension options and the options that write
// files (-o, -p, -d) are denied. Operands after the program are files
// read, except var=value assignments.
var awkSpec = &spec{
	allow: `-F= --field-separator= -v= --assign= -e=@p --source=@p -b --characters-as-bytes
		-c --traditional -C --copyright -g --gen-pot -h -M --bignum
		-N --use-lc-numeric -n --non-decimal-data -O --optimize -P --posix -r --re-interval
		-s --no-optimize -S --sandbox -t --lint-old -V`,
	deny: []denial{
		{`-f|--file=@f -i= --include= -l= --load= -E|--exec=@f -W=`,
			"loads program code or extensions from files"},
		{`-o? --pretty-print? -p? --profile? -d? --dump-variables?`, "writes a file"},
		{`-D? --debug?`, "starts the interactive debugger"},
		{`-L? --lint?`, "is not modelled"},
	},
	posix:  true,
	ops:    opsHook,
	check:  checkAwk,
	hasCmd: true, // the program can start processes
}

var awkDangers = []struct{ needle, why string }{
	{"system", "system() runs a command"},
	{"getline", "getline can read from a command"},
	{"close", "close() acts on command streams"},
	{"fflush", "fflush() acts on command streams"},
	{"@", "gawk's @ forms load code or call functions by name (@f() can call system)"},
	{"ARGV", "changing ARGV reads files not on the command line"},
	{"ARGC", "changing ARGC reads files not on the command line"},
	// gawk's network special files are names that start with /inet (a
	// string "/inet..."): a regular expression (/inet addr/) names no file.
	{`"/inet`, "special network files are not modelled"},
}

// awkRunsData reports whether an awk program may hand text it reads to a
// shell: system(), a pipe to or from a command (print | "sh", cmd |
// getline, gawk's |&), an @ call (f = "system"; @f()), or a program only
// known at run time. A pipe is a "|" token (awkPipes): "||" is a logical
// or, a "|" in a string or a regular expression literal is text.
func awkRunsData(prog string) bool {
	pipe, _ := awkPipes(prog)
	return strings.Contains(prog, Dynamic) || strings.Contains(prog, "system") || strings.Contains(prog, "@") || pipe
}

func checkAwk(st *state) {
	for _, mv := range st.vals {
		if mv.mark == 'f' && unseenFile(mv.val) {
			st.codeWord(mv.idx)
			st.runsUnknown("awk -f " + printable(mv.val) + ": the program is not a file permopa can name")
		}
	}
	ops := st.ops
	var progs []string
	if st.has('p') {
		for _, mv := range st.vals {
			if mv.mark == 'p' {
				progs = append(progs, mv.val)
			}
		}
	} else {
		if len(ops) == 0 {
			st.fail("awk: no program")
			return
		}
		progs, ops = ops[:1], ops[1:]
	}
	for _, prog := range progs {
		// system(), pipes to and from commands and gawk's indirect calls
		// start processes: code permopa does not read.
		pipe, pipeWhy := awkPipes(prog)
		starts := strings.Contains(prog, Dynamic) || strings.Contains(prog, "system") || pipe ||
			strings.Contains(prog, "@")
		failed := false
		if strings.Contains(prog, Dynamic) {
			st.fail("awk: the program is only known at run time")
			failed = true
		}
		if !failed && pipe {
			st.fail("awk: " + pipeWhy)
			failed = true
		}
		for _, d := range awkDangers {
			if !failed && strings.Contains(prog, d.needle) {
				st.fail("awk: " + d.why)
				failed = true
			}
		}
		if starts {
			st.codeWord(indexOf(st.argv, prog))
			if awkRunsData(prog) {
				st.runsData("awk: the program can run its input as a command (system, a pipe, an indirect call) or is only known at run time")
			}
			st.runsUnknown("awk: the program can start processes (system, a pipe, an indirect call) or is only known at run time")
		}
		if failed {
			return
		}
		// Output redirection exists only in print and printf statements,
		// outside the parentheses opened in them (awkOutputRedirect); a
		// ">" anywhere else is a comparison ($4 >= 1000, if ($1 > 3)).
		if redir, why := awkOutputRedirect(prog); redir {
			st.fail("awk: " + why + " (output redirection)")
			// Which file is not read: an allow rule spells the program out.
			st.codeWord(indexOf(st.argv, prog))
			return
		}
	}
	for _, o := range ops {
		if k := strings.IndexByte(o, '='); k > 0 && isIdent(o[:k]) {
			continue
		}
		if strings.HasPrefix(o, "/inet") {
			// gawk opens a data file named /inet/tcp/0/HOST/PORT (and
			// /inet4, /inet6) as a network connection.
			st.egress(o)
			return
		}
		st.read(o)
	}
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func init() {
	register(sortSpec, "sort")
	register(uniqSpec, "uniq")
	register(jqSpec, "jq")
	register(sedSpec, "sed")
	register(awkSpec, "awk", "gawk", "mawk", "nawk")
}
