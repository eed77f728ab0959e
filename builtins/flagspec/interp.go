package flagspec

import "strings"

// Interpreters and shells run code, so they are never read-only. The only
// exceptions are the exact argv forms below, which print a version and exit
// without reading a script or stdin. "ruby -v" is not one of them: it prints
// the version and then runs a script from stdin. "python -v" is verbose mode,
// not a version query.
var versionForms = map[string][]string{
	"python":  {"--version", "-V", "-VV"},
	"python3": {"--version", "-V", "-VV"},
	"python2": {"--version", "-V"},
	"node":    {"--version", "-v"},
	"nodejs":  {"--version", "-v"},
	"deno":    {"--version", "-V"},
	"bun":     {"--version", "-v"},
	"ruby":    {"--version"},
	"perl":    {"--version", "-v"},
	"php":     {"--version", "-v"},
	"bash":    {"--version"},
	"zsh":     {"--version"},
	"java":    {"--version", "-version"},
	"rustc":   {"--version", "-V"},
	"gcc":     {"--version"},
	"clang":   {"--version"},
	"make":    {"--version", "-v"},
}

// interpreterReason says why an interpreter, a shell or a compiler is
// never read-only: the interpreters and shells of codeRunners (runscode.go)
// and the compilers, whose version forms are read-only.
var interpreterReason = map[string]string{
	"rustc": "compiles and writes files", "gcc": "compiles and writes files",
	"clang": "compiles and writes files",
}

func init() {
	for p, r := range codeRunners {
		if r.kind == Interpreter || r.kind == Shell || p == "make" {
			interpreterReason[p] = r.why
		}
	}
}

// judgeExact handles the interpreters' version forms; ok is false when the
// program is not an interpreter (or has a flag spec of its own, as make).
func judgeExact(argv []string) (Verdict, bool) {
	why, isInterp := interpreterReason[argv[0]]
	if !isInterp {
		return Verdict{}, false
	}
	if len(argv) == 2 {
		for _, f := range versionForms[argv[0]] {
			if argv[1] == f {
				return Verdict{Known: true, ReadOnly: true}, true
			}
		}
	}
	if registry[argv[0]] != nil {
		return Verdict{}, false
	}
	v := Verdict{Known: true, Reason: argv[0] + " " + why}
	if ic, ok := inlineCode[argv[0]]; ok {
		v.RunsUnknown, v.CodeWords = ic.scan(argv)
	}
	return v, true
}

// interp says how an interpreter takes code on its command line.
type interp struct {
	// inline are the short options whose value (the rest of the cluster or
	// the next word) is program text; longInline the long ones.
	inline     string
	longInline []string
	// glued are short options whose value is the rest of the cluster (or
	// the next word when the cluster ends there): the scan skips it.
	glued string
	// stop are options after which the remaining words belong to a module
	// the interpreter loads (python -m): a file, not code in argv.
	stop string
	// sub are subcommands that take code (deno eval), run code from the
	// network or stdin (deno run URL is still a file the analyser does not
	// read) or run a package (bun x).
	sub map[string]string
	// noStdin: without a script operand the interpreter does not read its
	// program from stdin.
	noStdin bool
	// python: -c code is checked by pythonNoProcess.
	python bool
	// interactive are short options that make the interpreter read more
	// code from stdin (python -i, lua -i, php -a).
	interactive string
	// always: every invocation runs code permopa does not read (options
	// that take code or values in forms not modelled here: erl -eval,
	// racket -k A B C, swift build).
	always bool
}

// inlineCode lists the interpreters whose command line can carry code:
// program text in an option (python -c, node -e, perl -e, ...) or, with no
// script operand, a program read from stdin. Both run code permopa cannot
// read. Only for python is the absence of process-starting calls proved,
// conservatively (pythonNoProcess); "perl -e 'print 1'" counts too. A
// script operand is a file the
// analyser does not read, like any script: not counted here.
var inlineCode = map[string]interp{
	"python":     {inline: "c", glued: "WXQ", stop: "m", python: true, interactive: "i"},
	"python2":    {inline: "c", glued: "WXQ", stop: "m", python: true, interactive: "i"},
	"python3":    {inline: "c", glued: "WXQ", stop: "m", python: true, interactive: "i"},
	"node":       {inline: "ep", longInline: []string{"--eval", "--print", "--interactive", "-i"}, glued: "rC", noStdin: false},
	"nodejs":     {inline: "ep", longInline: []string{"--eval", "--print", "--interactive", "-i"}, glued: "rC"},
	"bun":        {inline: "ep", longInline: []string{"--eval", "--print"}, sub: map[string]string{"x": "bun x runs a package's program", "repl": "bun repl reads code from stdin"}, noStdin: true},
	"deno":       {longInline: []string{"--eval"}, sub: map[string]string{"eval": "deno eval runs inline code", "repl": "deno repl reads code from stdin"}, noStdin: true},
	"perl":       {inline: "eEMm", glued: "IiCdDFlx0V"},
	"ruby":       {inline: "e", glued: "IrCEFKTWx0"},
	"php":        {inline: "rBRE", glued: "cdz", interactive: "a", longInline: []string{"--run", "--process-begin", "--process-code", "--process-end"}},
	"lua":        {inline: "e", glued: "l", interactive: "i"},
	"Rscript":    {inline: "e", longInline: []string{"--expr"}},
	"R":          {inline: "e"},
	"julia":      {inline: "eE", longInline: []string{"--eval", "--print"}},
	"osascript":  {inline: "e"},
	"pwsh":       {longInline: []string{"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"}},
	"powershell": {longInline: []string{"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"}},
	"fish":       {inline: "c", longInline: []string{"--command", "--init-command"}, glued: "C"},
	"tclsh":      {},
	"expect":     {inline: "c"},
	"wish":       {},
	"pypy":       {inline: "c", glued: "WXQ", stop: "m", python: true, interactive: "i"},
	"pypy3":      {inline: "c", glued: "WXQ", stop: "m", python: true, interactive: "i"},
	"irb":        {glued: "rI"},
	"luajit":     {inline: "e", glued: "lj", interactive: "i"},
	"raku":       {inline: "e", glued: "IM"},
	"guile":      {inline: "ce", glued: "lLxC"},
	"elixir":     {inline: "eS", longInline: []string{"--eval", "--rpc-eval"}, noStdin: true},
	"escript":    {noStdin: true},
	// java runs class and jar files (script operands) and, on a crash,
	// the command lines of -XX:OnError.
	"java":       {longInline: []string{"-XX:OnError", "-XX:OnOutOfMemoryError"}, noStdin: true},
	"jshell":     {always: true},
	"jrunscript": {always: true},
	"racket":     {always: true},
	"ocaml":      {always: true},
	"swift":      {always: true},
	"scala":      {always: true},
	"kotlin":     {always: true},
	"groovy":     {always: true},
	"erl":        {always: true},
	"iex":        {always: true},
	"csh":        {inline: "c"},
	"tcsh":       {inline: "c"},
	"nu":         {inline: "ce", longInline: []string{"--commands", "--execute", "--config", "--env-config"}},
	"elvish":     {inline: "c"},
	"xonsh":      {inline: "c"},
}

// unseenFile reports a script operand that is no file on disk: stdin, a
// process substitution or another file descriptor, a word only known at
// run time.
func unseenFile(p string) bool {
	return p == "-" || p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") ||
		strings.HasPrefix(p, "/proc/self/fd/") || strings.Contains(p, Dynamic)
}

// scan returns why argv runs code permopa cannot read ("" when it only
// runs a script file) and 1 + the index of the last word holding it.
func (ic interp) scan(argv []string) (string, int) {
	prog := argv[0]
	if ic.always {
		return prog + " runs code permopa does not read", len(argv)
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if strings.HasPrefix(a, Dynamic) {
			return prog + ": the word " + printable(a) + " is only known at run time and may be code", len(argv)
		}
		if why, ok := ic.sub[a]; ok && i == 1 {
			return why, len(argv)
		}
		if a == "-" {
			return prog + " reads its program from stdin", i + 1
		}
		if a == "--" || len(a) < 2 || a[0] != '-' {
			if a == "--" && i+1 < len(argv) {
				i++
				a = argv[i]
			}
			if a == "--" {
				break
			}
			// A script file is a file the analyser does not read, unless it
			// is no file on disk (python3 <(curl ...), node /dev/stdin).
			if unseenFile(a) {
				return prog + " runs a script that is not a file permopa can name", i + 1
			}
			return "", 0
		}
		name, _, _ := strings.Cut(a, "=")
		for _, l := range ic.longInline {
			if name == l {
				return prog + " " + l + " runs inline code that can start processes", min(i+2, len(argv))
			}
		}
		if a[1] == '-' {
			continue // other long options (node --inspect, python --check-hash-based-pycs mode)
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			if strings.IndexByte(ic.interactive, c) >= 0 {
				return prog + " -" + string(c) + " reads code from stdin", len(argv)
			}
			if strings.IndexByte(ic.inline, c) >= 0 {
				// The code is the rest of the cluster or the next word
				// (node -pe CODE): allow rules spell out both.
				why := prog + " -" + string(c) + " runs inline code that can start processes"
				if ic.python && c == 'c' {
					code := a[j+1:]
					if code == "" && i+1 < len(argv) {
						code = argv[i+1]
					}
					if code != "" && !strings.Contains(code, Dynamic) && pythonNoProcess(code) {
						why = "" // proved not to start a process
					}
				}
				return why, min(i+2, len(argv))
			}
			if strings.IndexByte(ic.stop, c) >= 0 {
				return "", 0
			}
			if strings.IndexByte(ic.glued, c) >= 0 {
				if j+1 == len(a) {
					i++ // the value is the next word
				}
				break
			}
		}
	}
	if ic.noStdin {
		return "", 0
	}
	return prog + " reads its program from stdin", len(argv)
}

// knownWriters are programs permopa knows and that are never read-only
// (they write, execute or change state), with the reason. Programs with
// subcommands that have no read-only subcommand at all are listed in
// subcommandOnly so that Subcommand is still reported.
var knownWriters = map[string]string{
	"curl":           "reaches the network and can write files or send data",
	"wget":           "downloads files",
	"ssh":            "runs commands on another host",
	"scp":            "copies files over the network",
	"rsync":          "copies and deletes files",
	"sftp":           "copies files over the network",
	"nc":             "opens network connections",
	"ncat":           "opens network connections",
	"socat":          "opens network connections",
	"telnet":         "opens network connections",
	"dd":             "writes devices and files",
	"mkfs":           "formats file systems",
	"zip":            "writes archives",
	"patch":          "modifies files",
	"pkill":          "signals processes",
	"reboot":         "reboots the machine",
	"shutdown":       "shuts the machine down",
	"sudo":           "runs commands as another user",
	"su":             "runs commands as another user",
	"doas":           "runs commands as another user",
	"eval":           "runs its arguments as a command",
	"exec":           "replaces the shell with a command",
	"source":         "runs a script in the shell",
	".":              "runs a script in the shell",
	"xargs":          "runs commands",
	"vi":             "is an interactive editor",
	"vim":            "is an interactive editor",
	"nvim":           "is an interactive editor",
	"nano":           "is an interactive editor",
	"emacs":          "is an interactive editor",
	"less":           "is an interactive pager that can run commands and write files",
	"more":           "is an interactive pager that can run commands",
	"crontab":        "changes scheduled jobs",
	"unalias":        "changes aliases",
	"trap":           "installs commands run on signals",
	"npx":            "downloads and runs packages",
	"pnpx":           "downloads and runs packages",
	"uvx":            "downloads and runs packages",
	"terraform":      "changes infrastructure",
	"helm":           "changes cluster state",
	"uv":             "installs packages and runs code",
	"poetry":         "installs packages and runs code",
	"conda":          "installs packages",
	"gem":            "installs packages",
	"bundle":         "installs packages and runs code",
	"rustup":         "installs toolchains",
	"dnf":            "installs and removes packages",
	"yum":            "installs and removes packages",
	"snap":           "installs and removes packages",
	"launchctl":      "controls services",
	"service":        "controls services",
	"aws":            "calls cloud APIs that change state",
	"gcloud":         "calls cloud APIs that change state",
	"az":             "calls cloud APIs that change state",
	"podman":         "runs containers",
	"docker-compose": "runs containers",
	"mvn":            "builds and runs code",
	"gradle":         "builds and runs code",
	"pytest":         "runs code",
	"jest":           "runs code",
	"tsc":            "compiles and writes files",
	"eslint":         "runs code from its configuration",
	"prettier":       "rewrites files",
	"open":           "opens files and URLs in other programs",
	"xdg-open":       "opens files and URLs in other programs",
}

func init() {
	for _, p := range []string{
		"bun", "dnf", "yum", "snap", "launchctl", "service", "terraform", "helm", "uv", "poetry",
		"conda", "gem", "bundle", "rustup", "aws", "gcloud", "az", "podman",
		"docker-compose", "mvn", "gradle",
	} {
		subcommandPrograms[p] = true
	}
}

// pythonNoProcess reports python -c code that cannot start a process,
// proved conservatively from its tokens: no non-ASCII outside strings
// (Python folds compatibility characters in names), no name starting with
// "__", none of the built-ins that reach other code (eval, exec, compile,
// open, getattr, globals, ...), imports of listed modules only, and after
// a dot only listed attribute names (module attributes reach other modules:
// uuid.os.system). f-strings are read as code. Anything else is not proved.
func pythonNoProcess(code string) bool {
	afterDot, importing, fromModule := false, false, false
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c >= 0x80:
			return false
		case c == '#':
			for i < len(code) && code[i] != '\n' {
				i++
			}
			continue
		case c == '\n' || c == ';':
			importing, fromModule = false, false
		case c == '\'' || c == '"':
			end, ok := pyString(code, i, false)
			if !ok {
				return false
			}
			i, afterDot = end, false
			continue
		case c == '.':
			afterDot = true
			i++
			continue
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(code) && (code[j] == '_' || code[j] >= 'a' && code[j] <= 'z' || code[j] >= 'A' && code[j] <= 'Z' ||
				code[j] >= '0' && code[j] <= '9') {
				j++
			}
			name := code[i:j]
			// A string prefix: f-strings hold expressions.
			if j < len(code) && (code[j] == '\'' || code[j] == '"') && len(name) <= 2 && strings.Trim(strings.ToLower(name), "rbuf") == "" {
				end, ok := pyString(code, j, strings.ContainsAny(name, "fF"))
				if !ok {
					return false
				}
				i, afterDot = end, false
				continue
			}
			switch {
			case strings.HasPrefix(name, "__"):
				return false
			case name == "import":
				importing = true
			case name == "from":
				importing, fromModule = true, true
			case importing && name != "as" && !(fromModule && name == "import"):
				// from M import A: M must be a listed module, A a listed name.
				if !pyModules[name] && !pyAttrs[name] {
					return false
				}
			case afterDot:
				if !pyAttrs[name] {
					return false
				}
			case pyReach[name]:
				return false
			}
			i, afterDot = j, false
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\\':
			i++
			continue
		}
		afterDot = false
		i++
	}
	return true
}

// pyString skips a string literal starting at the quote code[i]; with
// fstring its replacement fields are checked as code.
func pyString(code string, i int, fstring bool) (int, bool) {
	q := code[i]
	triple := strings.HasPrefix(code[i:], string([]byte{q, q, q}))
	n := 1
	if triple {
		n = 3
	}
	j := i + n
	for j < len(code) {
		c := code[j]
		switch {
		case c == '\\':
			j += 2
			continue
		case c == q && (!triple || strings.HasPrefix(code[j:], string([]byte{q, q, q}))):
			if fstring && !pythonNoProcess(code[i+n:j]) {
				return 0, false
			}
			return j + n, true
		case c == '\n' && !triple:
			return 0, false
		}
		j++
	}
	return 0, false
}

// pyReach are built-ins that run or load other code, or reach objects
// that do (help runs a pager, input reads the terminal).
var pyReach = map[string]bool{
	"eval": true, "exec": true, "compile": true, "open": true, "getattr": true, "setattr": true,
	"delattr": true, "globals": true, "locals": true, "vars": true, "input": true, "help": true,
	"breakpoint": true, "memoryview": true, "exit": true, "quit": true,
}

// pyModules are the modules a proved snippet may import.
var pyModules = map[string]bool{
	"json": true, "sys": true, "re": true, "math": true, "datetime": true, "collections": true,
	"itertools": true, "functools": true, "string": true, "textwrap": true, "base64": true,
	"hashlib": true, "statistics": true, "decimal": true, "fractions": true, "random": true, "csv": true,
}

// pyAttrs are the attribute names a proved snippet may use: data methods
// and the listed modules' functions, none of which runs a process.
var pyAttrs = map[string]bool{}

func init() {
	for _, a := range strings.Fields(`loads load dumps dump JSONDecodeError stdin stdout stderr argv version
		version_info maxsize read readline readlines write writelines flush split rsplit splitlines strip
		rstrip lstrip join replace lower upper title capitalize casefold startswith endswith find rfind
		index count get items keys values append extend insert pop remove sort reverse copy update
		setdefault clear format format_map encode decode isdigit isalpha isalnum isspace isupper islower
		isnumeric isdecimal zfill ljust rjust center partition rpartition expandtabs search match
		fullmatch findall finditer sub subn escape group groups groupdict start end span sqrt floor ceil
		log log2 log10 exp pow pi e inf nan isnan isinf fsum gcd prod comb perm now today date time
		datetime timedelta strftime strptime isoformat fromisoformat fromtimestamp timestamp year month
		day hour minute second days seconds microseconds total_seconds utcnow Counter defaultdict
		OrderedDict deque namedtuple most_common elements chain groupby product permutations
		combinations accumulate islice zip_longest reduce partial lru_cache b64encode b64decode
		urlsafe_b64encode urlsafe_b64decode b32encode b32decode b16encode b16decode sha256 sha1 sha512
		md5 hexdigest digest mean median mode stdev variance Decimal Fraction randint choice choices
		shuffle random uniform sample seed reader writer DictReader DictWriter writerow writerows
		writeheader fieldnames ascii_letters ascii_lowercase ascii_uppercase digits hexdigits
		punctuation whitespace dedent indent fill wrap shorten real imag numerator denominator
		bit_length to_bytes from_bytes hex fromhex`) {
		pyAttrs[a] = true
	}
}
