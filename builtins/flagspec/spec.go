package flagspec

import (
	"sort"
	"strings"
	"sync"
)

// This file is the flag-specification engine. A program is described by a
// spec: an allowlist of flags written as a compact string, a list of denied
// flags each with the reason it is dangerous, an operand policy, optional
// subcommands and an optional check hook for what a table cannot say (sed
// scripts, awk programs, uniq's output operand).
//
// An option listed both in deny and in allow is denied. Flag syntax in allow
// and deny strings, one flag per space-separated token:
//
//	-x         short option without a value
//	--long     long option without a value
//	-x=        option with a required value (-xVAL, -x VAL, --long=VAL, --long VAL)
//	--long?    option with an optional value (-xVAL or --long=VAL only)
//	--long+    value taken from the next word unless the option is last (git --contains)
//	--long==   option with two values (jq --arg NAME VALUE)
//	...=r      the value is a path that is read; =w: a path that is written
//	...=x      the value is a shell command line the program runs (tar
//	           --to-command): the analyser parses it like sh -c's script
//	...=c      the value is code the analyser cannot read (inline code in
//	           another language, vim's -c): the invocation runs unknown code
//	...@p      the option sets mark p, which check hooks and operand policies test
//	-r|-R|--recursive   synonyms: one option with several spellings; the
//	           suffix (arity, role, mark) is written once, after the last
//	           name, and the canonical name is the first long name (else
//	           the first name)
//	-D>--delete>--force  the option also means the options named after ">"
//	           (canonical names): git branch -D is --delete --force
//
// Parsing follows GNU getopt_long: short options cluster (-la), a value may
// be glued (-n5) or separate (-n 5), long options take --opt=VAL or --opt VAL,
// any unambiguous prefix of a long option is that option (so --outp=f is
// --output and a denied flag cannot be smuggled in abbreviated), "--" ends
// the options, and options and operands may be mixed unless the spec says
// options stop at the first operand. Everything not in the allowlist fails
// closed: the invocation is not read-only and the Reason names the flag.

type arity uint8

const (
	argNone arity = iota
	argReq
	argOpt
	argLast
	argTwo
)

type role uint8

const (
	roleNone role = iota
	roleRead
	roleWrite
	// roleCmd: the value is a shell command line the program runs.
	roleCmd
	// roleCode: the value is code the analyser cannot read.
	roleCode
)

// flagDef is one compiled option.
type flagDef struct {
	name  string // as written: "-n", "--lines", or "-name" for single-dash specs
	canon string // the canonical name of the option's synonym group
	// implies are the canonical names of options this one also means.
	implies []string
	arity   arity
	role    role
	mark    byte   // 'a'..'z', 0 for none
	deny    string // non-empty: using the option makes the call not read-only
	// parseOnly: a spelling only Parse knows (gnuSynonyms names it, the
	// spec does not list it): Judge treats it as an unknown option.
	parseOnly bool
}

// denial is a group of dangerous options sharing one reason.
type denial struct {
	flags string
	why   string
}

// opsPolicy says what the operands (non-option words) are.
type opsPolicy uint8

const (
	// opsText: operands are not paths (echo, seq, basename).
	opsText opsPolicy = iota
	// opsRead: every operand is a file or directory that is read.
	opsRead
	// opsPatRead: the first operand is a pattern unless an option marked
	// @e supplied one (grep -e, -f); the rest are files read.
	opsPatRead
	// opsNone: any operand makes the call not read-only (hostname NAME).
	opsNone
	// opsGit: operands are revisions and pathspecs; each is reported as read,
	// and the path of a REV:PATH operand is reported too.
	opsGit
	// opsHook: the check hook handles operands.
	opsHook
)

// spec describes one program or subcommand.
type spec struct {
	allow string   // options that keep the call read-only
	deny  []denial // options that do not, with the reason
	ops   opsPolicy
	// maxOps > 0 caps the operands; more make the call not read-only
	// (uniq IN OUT, xxd IN OUT: the extra operand is an output file).
	maxOps int
	num    bool // -NUM is an option (head -20, git log -5, grep -3)
	posix  bool // options end at the first operand
	single bool // options are whole words (-name, -json): no clusters, no abbreviation
	noStd  bool // do not add --help and --version
	// never, when set, makes the program or subcommand known but never
	// read-only; the string is the reason. A filesystem command's options
	// are still parsed (for Writes); a subcommand's are not.
	never string
	// fs marks a filesystem command (docs/shell.md): its hook fills Writes,
	// and FSCommand is set when every option was understood.
	fs bool
	// writer: the hook fills Writes as for fs, but the program is no
	// filesystem command the working-directory test may allow (mknod,
	// setfacl, chattr).
	writer bool
	check  func(*state)
	// subs are the subcommands; the first operand selects one.
	subs map[string]*spec
	// group: this subcommand is a noun whose own subcommand follows
	// ("gh pr list"), reported as a two-word Subcommand.
	group bool
	// inherit: options of this spec are also accepted by its subcommands
	// (cobra persistent flags: docker -H, kubectl -n).
	inherit bool
	// anyArgs: every argument is accepted (echo, true, test): the program
	// parses no options that could write or execute.
	anyArgs bool
	// noAbbrev: the program's parser does not accept abbreviated long
	// options (cobra/pflag, clap, jq); a prefix is then an unknown option.
	// Inherited by subcommands.
	noAbbrev bool
	// complete: the allow list names every option the program has
	// (checked against its --help), so what the spec says of its options
	// is all they can do. compile derives harmless from it.
	complete bool
	// noSub: what happens without a subcommand; "" means read-only.
	noSub string
	// subFallback: a first operand that is no subcommand is an operand of
	// this spec ("git reflog HEAD").
	subFallback bool
	// operand, for Parse: the canonical form of an operand and the options
	// it means (git push's "+main" is "main" with --force).
	operand func(op string) (string, []string)
	// runs: the program runs a command given as its operands, starting at
	// operand number runs (1-based): flock FILE CMD ARGS has runs 2. The
	// analyser walks that command as a wrapped one.
	runs int
	// runsFlag: a word at the command's place that makes the next word a
	// shell command line instead (flock FILE -c CMD).
	runsFlag string
	// oldStyle: a first argument without a dash is a cluster of options
	// whose values are the following words, in order (tar xzf a.tgz).
	oldStyle bool
	// network: how the program or subcommand reaches the network (NetRead:
	// a service configured outside the command; set on the verdict).
	network string
	// netAlways: the network kind holds with --help and --version too
	// (inherited).
	netAlways bool
	// cache: directories the program writes only for its own cache, logs
	// and state (Verdict.CacheWrites).
	cache []string
	// terminal says how the program reads keys or commands from its
	// terminal when it has one (a pager's !cmd, top's k); "" when it does
	// not. It holds for the subcommands too, unless an option marked @m
	// (--no-pager, top -b) turns it off. Verdict.Terminal.
	terminal string
	// local: this subcommand does not reach the network although its
	// program does; network and cache are inherited by subcommands otherwise.
	local bool
	// nopt: options are read as npm's parser (nopt) reads them: a word
	// "true" or "false" after a boolean option is its value ("npm -l
	// false publish" runs publish). Inherited by subcommands.
	nopt bool
	// alias: the subcommand word the program runs for a word (npm pub is
	// publish; subcommands.go).
	alias func(word string) string
	// runsString: the command is a shell command line made of the
	// remaining words joined by spaces (ssh HOST CMD...).
	runsString bool

	// hasCmd: some option's value is a command or code (role x or c), so
	// words the parser could not place may hide one. Set in a table when
	// the check hook knows more; compile adds the options' roles and runs,
	// and hasCmdTree the subcommands'.
	hasCmd bool

	// The compiled tables, filled by compile on first use in a copy of the
	// table (a node): each program, and each subcommand, is compiled only
	// when an invocation or a rule reaches it (lookup, kid). Compiling a
	// whole tree (git's, for one "Bash(git push:*)" rule) costs a
	// short-lived process (a hook) milliseconds it does not need, and
	// keeping them out of the tables keeps the ~700 tables that package
	// initialisation allocates small. The tables declared in the files of
	// this package are never written after init, so nodes compile
	// concurrently.
	*compiled
}

// compiled is what compile makes of a spec.
type compiled struct {
	name    string     // "git log", for reasons and Subcommand
	subPath string     // "log", "pr list"
	short   [128]int16 // index+1 into defs
	defs    []flagDef  // every option
	// dashWords: some option is a whole word with one dash (xxd -ps).
	dashWords bool
	longs     []flagDef // sorted by name; long options (and single-dash words)
	// kids are the subcommands' nodes, by word, each compiled on first use
	// with the options inherited from above (inhAllow, inhDeny).
	kids     map[string]*lazyNode
	inhAllow string
	inhDeny  []denial
	// harmless: the spec is complete and no option of it, in any
	// spelling, reads or writes a path given as its value, runs a
	// command or code, is denied, or sets a mark a check hook reads
	// (grep -r, ls -R, md5sum -c: what else is read): a word only known
	// at run time (a glob such as *, which matches a file named
	// --files0-from=k) may then stand where an option could; it is still
	// reported as an operand (docs/shell.md, "Read-only").
	harmless bool
	// treeOnce and treeCmd memoise hasCmdTree.
	treeOnce sync.Once
	treeCmd  bool
}

// lazyNode is one place in a program's tree (the program itself, or a
// subcommand under its parent's node), compiled once on first use.
type lazyNode struct {
	once sync.Once
	tmpl *spec
	// parent is the compiled node of the parent, nil for a program.
	parent *spec
	// name is the program's name, or the subcommand's word.
	name string
	node *spec
}

// get returns the compiled node. Safe for concurrent use.
func (l *lazyNode) get() *spec {
	l.once.Do(func() {
		c := *l.tmpl
		p := l.parent
		if p == nil {
			c.compile(l.name, "", "", nil)
			l.node = &c
			return
		}
		// Each place in the tree gets its own copy, so that a spec shared
		// by several subcommands (git log and git whatchanged) reports its
		// own name.
		c.noAbbrev = c.noAbbrev || p.noAbbrev
		c.nopt = c.nopt || p.nopt
		c.netAlways = c.netAlways || p.netAlways
		if !c.local {
			c.network = firstNonEmptyStr(c.network, p.network)
			if c.cache == nil {
				c.cache = p.cache
			}
		}
		sp := l.name
		if p.subPath != "" {
			sp = p.subPath + " " + l.name
		}
		c.compile(p.name+" "+l.name, sp, p.inhAllow, p.inhDeny)
		l.node = &c
	})
	return l.node
}

// kid returns the compiled node of subcommand word, nil when s has none.
func (s *spec) kid(word string) *spec {
	if l := s.kids[word]; l != nil {
		return l.get()
	}
	return nil
}

// hasCmdTree reports whether an option of s or of any subcommand below it
// runs a command or code, or a subcommand runs one: the words after a
// point where parsing stopped may hide one. It compiles the subtree once.
func (s *spec) hasCmdTree() bool {
	if s.kids == nil {
		return s.hasCmd
	}
	s.treeOnce.Do(func() {
		v := s.hasCmd
		for w := range s.kids {
			v = v || s.kid(w).hasCmdTree()
		}
		s.treeCmd = v
	})
	return s.treeCmd
}

var (
	// registry holds the tables by program name; roots their compiled
	// nodes, one per table (a table registered under several names is
	// compiled once).
	// Sized for the ~330 program names registered at initialisation, so
	// filling them does not grow and rehash them each start.
	registry = make(map[string]*spec, 384)
	roots    = make(map[string]*lazyNode, 384)
	// subcommandPrograms are the programs that take subcommands, including
	// those with no read-only subcommand at all (HasSubcommands).
	subcommandPrograms = map[string]bool{}
)

// register files s under each name; it is compiled on first lookup.
func register(s *spec, names ...string) {
	var root *lazyNode
	for _, n := range names {
		if root == nil {
			root = &lazyNode{tmpl: s, name: n}
		}
		registry[n] = s
		roots[n] = root
		if s.subs != nil {
			subcommandPrograms[n] = true
		}
	}
}

// lookup returns the compiled node of a program, nil when unknown. Safe
// for concurrent use.
func lookup(prog string) *spec {
	if r := roots[prog]; r != nil {
		return r.get()
	}
	return nil
}

// compile turns the flag strings into lookup tables, recursively. inhAllow
// and inhDeny are options inherited from ancestors with inherit set.
func (s *spec) compile(name, subPath string, inhAllow string, inhDeny []denial) {
	s.compiled = &compiled{name: name, subPath: subPath}
	var defs []flagDef
	seen := map[string]bool{}
	add := func(text, why string) {
		for _, tok := range strings.Fields(text) {
			for _, d := range parseTokens(tok) {
				d.deny = why
				if seen[d.name] {
					continue
				}
				seen[d.name] = true
				s.hasCmd = s.hasCmd || d.role == roleCmd || d.role == roleCode
				defs = append(defs, d)
			}
		}
	}
	for _, d := range s.deny {
		add(d.flags, d.why)
	}
	add(s.allow, "")
	for _, d := range inhDeny {
		add(d.flags, d.why)
	}
	add(inhAllow, "")
	if !s.noStd {
		add("--help --version", "")
	}
	defs = joinSynonyms(defs, gnuSynonyms[name])
	s.defs = defs
	s.longs = nil
	for i, d := range defs {
		if !s.single && len(d.name) == 2 && d.name[0] == '-' && d.name[1] != '-' {
			s.short[d.name[1]&127] = int16(i + 1)
		} else {
			s.longs = append(s.longs, d)
			s.dashWords = s.dashWords || !s.single && d.name[1] != '-'
		}
	}
	sort.Slice(s.longs, func(i, j int) bool { return s.longs[i].name < s.longs[j].name })
	s.hasCmd = s.hasCmd || s.runs > 0
	s.harmless = s.complete && optionsHarmless(defs)
	if s.subs == nil {
		return
	}
	if s.inherit {
		inhAllow = s.allow + " " + inhAllow
		inhDeny = append(append([]denial(nil), s.deny...), inhDeny...)
	}
	s.inhAllow, s.inhDeny = inhAllow, inhDeny
	s.kids = make(map[string]*lazyNode, len(s.subs))
	for word, sub := range s.subs {
		s.kids[word] = &lazyNode{tmpl: sub, parent: s, name: word}
	}
}

// optionsHarmless reports whether no option among defs can make a call
// do more than read its operands: none is denied, takes a path read or
// written, a command or code, or sets a mark (a check hook reads marks to
// add reads: trees, lists of files). The options an option implies are
// themselves in defs.
func optionsHarmless(defs []flagDef) bool {
	for _, d := range defs {
		if d.deny != "" || d.role != roleNone || d.mark != 0 {
			return false
		}
	}
	return true
}

// boolValue reports whether v is a boolean as pflag reads it.
func boolValue(v string) bool {
	switch v {
	case "1", "0", "t", "f", "T", "F", "true", "false", "TRUE", "FALSE", "True", "False":
		return true
	}
	return false
}

func firstNonEmptyStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// parseTokens reads one token of the allow/deny syntax: a synonym group
// ("-r|-R|--recursive@r"), optionally followed by the options it implies
// (">--force").
func parseTokens(tok string) []flagDef {
	var implies []string
	if k := strings.IndexByte(tok[1:], '>'); k >= 0 {
		implies = strings.Split(tok[k+2:], ">")
		tok = tok[:k+1]
	}
	names := strings.Split(tok, "|")
	d := parseToken(names[len(names)-1])
	names[len(names)-1] = d.name
	canon := names[0]
	for _, n := range names {
		if strings.HasPrefix(n, "--") {
			canon = n
			break
		}
	}
	out := make([]flagDef, len(names))
	for i, n := range names {
		if len(n) < 2 || n[0] != '-' || i < len(names)-1 && strings.ContainsAny(n[2:], "=?+@>") {
			panic("flagspec: bad synonym group " + tok)
		}
		c := d
		c.name, c.canon, c.implies = n, canon, implies
		out[i] = c
	}
	return out
}

// parseToken reads one flag name with its suffix.
func parseToken(tok string) flagDef {
	// A name has at least two characters ("-@" is BSD ls's option).
	i := strings.IndexAny(tok[2:], "=?+@")
	if i < 0 {
		return flagDef{name: tok}
	}
	i += 2
	d := flagDef{name: tok[:i]}
	rest := tok[i:]
	switch {
	case strings.HasPrefix(rest, "=="):
		d.arity, rest = argTwo, rest[2:]
	case rest[0] == '=':
		d.arity, rest = argReq, rest[1:]
	case rest[0] == '?':
		d.arity, rest = argOpt, rest[1:]
	case rest[0] == '+':
		d.arity, rest = argLast, rest[1:]
	}
	for len(rest) > 0 {
		switch rest[0] {
		case 'r':
			d.role = roleRead
		case 'w':
			d.role = roleWrite
		case 'x':
			d.role = roleCmd
		case 'c':
			d.role = roleCode
		case '@':
			if len(rest) < 2 {
				panic("flagspec: bad mark in " + tok)
			}
			d.mark = rest[1]
			rest = rest[1:]
		default:
			panic("flagspec: bad flag token " + tok)
		}
		rest = rest[1:]
	}
	return d
}

// lookupLong finds a long option (name includes its dashes) exactly or by
// unambiguous prefix. ambiguous lists the candidates when there are several.
//
// With canon set (Parse), a prefix shared by options of different canonical
// names is ambiguous too.
func (s *spec) lookupLong(name string, canon bool) (d *flagDef, ambiguous string) {
	ls := s.longs
	i := sort.Search(len(ls), func(i int) bool { return ls[i].name >= name })
	if i < len(ls) && ls[i].name == name && (canon || !ls[i].parseOnly) {
		return &ls[i], ""
	}
	if s.single || s.noAbbrev || len(name) < 3 {
		return nil, ""
	}
	var first *flagDef
	j := i
	for ; j < len(ls) && strings.HasPrefix(ls[j].name, name); j++ {
		c := &ls[j]
		if c.parseOnly && !canon {
			continue
		}
		if first == nil {
			first = c
			continue
		}
		if c.arity != first.arity || c.role != first.role || c.mark != first.mark || c.deny != first.deny ||
			canon && c.canon != first.canon {
			var b strings.Builder
			for k := i; k < len(ls) && strings.HasPrefix(ls[k].name, name); k++ {
				if ls[k].parseOnly && !canon {
					continue
				}
				if b.Len() > 0 {
					b.WriteString(", ")
				}
				b.WriteString(ls[k].name)
			}
			return nil, b.String()
		}
	}
	return first, ""
}

// state is the work area of one Judge call.
type state struct {
	argv    []string
	v       Verdict
	spec    *spec
	ops     []string
	opsBuf  [16]string
	marks   uint32
	vals    []markVal
	valsBuf [8]markVal
	// unknown is set when an option was not understood (so targets are unknown).
	unknown bool
	// execs is set when the arguments make the program run commands.
	execs bool
	// help is set by --help or --version: the program prints and exits
	// without reaching the network.
	help bool
	// parse: the state serves Parse, which reads the argv into inv instead
	// of judging it (no hooks, no reasons, every subcommand's options).
	parse bool
	inv   *Invocation
}

type markVal struct {
	mark byte
	val  string
	idx  int // index in argv of the word holding the value
}

// at is the index in st.argv of args[i]: args is always a suffix of argv.
func (st *state) at(args []string, i int) int { return len(st.argv) - len(args) + i }

// command records a shell command line the invocation runs (an option
// value, sed's e command), held by argv word idx. A line only known at run
// time makes the invocation run unknown code.
func (st *state) command(label, line string, idx int) {
	st.codeWord(idx)
	st.fail(label + " runs a command")
	if strings.Contains(line, Dynamic) {
		st.runsUnknown(label + ": the command is only known at run time")
		return
	}
	for _, c := range st.v.Commands {
		if c.Line == line && c.Source == label {
			return
		}
	}
	st.v.Commands = append(st.v.Commands, Command{Source: label, Line: line})
}

// runsUnknown records that the invocation runs code permopa cannot read.
// runsData records that the invocation runs its data as a command.
func (st *state) runsData(why string) {
	st.runsUnknown(why)
	if st.v.RunsData == "" {
		st.v.RunsData = why
	}
}

func (st *state) runsUnknown(why string) {
	st.fail(why)
	if st.v.RunsUnknown == "" {
		st.v.RunsUnknown = why
	}
}

// codeWord records that argv word idx carries code.
func (st *state) codeWord(idx int) {
	if idx >= 0 && idx+1 > st.v.CodeWords {
		st.v.CodeWords = idx + 1
	}
}

// lost records that parsing stopped at argv word idx, before the end of
// argv. In Parse, more options may follow (Invocation.Open). In Judge, for
// a program with options that run commands: a word only known at run time
// (dynamic) may be such an option, so the invocation runs unknown code; an
// option the spec does not know makes the real program fail, or is newer
// than the spec, so the remaining words are scanned for options that run
// commands (and, for a program that runs a command, for its operands).
func (st *state) lost(s *spec, why string, idx int, dynamic bool) {
	if st.parse {
		if st.inv.Open == "" {
			st.inv.Open = why
		}
		if s.subs != nil && len(st.ops) == 0 && st.inv.Subcommand == s.subPath {
			// Stopped before the subcommand: it may be any.
			st.inv.SubcommandOpen = true
		}
		return
	}
	if !s.hasCmdTree() {
		return
	}
	if dynamic {
		st.runsUnknown(why + "; it may be an option that runs a command")
		st.codeWord(len(st.argv) - 1)
		return
	}
	for i := idx + 1; i < len(st.argv); i++ {
		a := st.argv[i]
		hit := strings.Contains(a, Dynamic)
		switch {
		case len(a) < 2 || a[0] != '-':
			hit = hit || s.runs > 0
		case a[1] == '-' || s.single:
			name, _, _ := strings.Cut(a, "=")
			d, amb := s.lookupLong(name, false)
			hit = hit || amb != "" || d != nil && (d.role == roleCmd || d.role == roleCode)
		default:
			for j := 1; j < len(a); j++ {
				if c := a[j]; c < 128 && s.short[c] != 0 {
					if d := &s.defs[s.short[c]-1]; d.role == roleCmd || d.role == roleCode {
						hit = true
					}
				}
			}
		}
		if hit {
			st.runsUnknown(why + "; a later word may run a command")
			st.codeWord(len(st.argv) - 1)
			return
		}
	}
}

var statePool = sync.Pool{New: func() any { return new(state) }}

// fail records a reason; the first one wins, and any reason makes the call
// not read-only.
func (st *state) fail(reason string) {
	if st.v.Reason == "" {
		st.v.Reason = reason
	}
}

func (st *state) has(mark byte) bool { return st.marks&(1<<(mark-'a')) != 0 }

// val returns the last value given to an option with mark, and whether there was one.
func (st *state) val(mark byte) (string, bool) {
	for i := len(st.vals) - 1; i >= 0; i-- {
		if st.vals[i].mark == mark {
			return st.vals[i].val, true
		}
	}
	return "", false
}

func (st *state) read(p string) {
	if p != "" && p != "-" {
		st.v.Reads = append(st.v.Reads, p)
	}
}

func (st *state) write(p string) {
	if p != "" {
		st.v.Writes = append(st.v.Writes, p)
	}
}

// link records that name leads to target (see Link).
func (st *state) link(name, target string, kind LinkKind) {
	if name != "" && target != "" {
		st.v.Links = append(st.v.Links, Link{Name: name, Target: target, Kind: kind})
	}
}

// links records the links of a command that puts each source at dest:
// into dest when it is a directory given by -t (intoDir), else at dest
// itself and, unless -T (noDir), also into dest in case it is a directory.
func (st *state) links(kind LinkKind, sources []string, dest string, intoDir, noDir bool) {
	for _, s := range sources {
		into := strings.TrimRight(dest, "/") + "/" + baseName(s)
		if strings.TrimRight(dest, "/") == "" {
			into = "/" + baseName(s)
		}
		if !intoDir && len(sources) == 1 {
			st.link(dest, s, kind)
			if noDir {
				continue
			}
		}
		st.link(into, s, kind)
	}
}

// intoWrites writes the names the sources get inside dest, for when dest
// is a directory ("cp x dir" writes dir/x), unless -T said it is not.
func (st *state) intoWrites(sources []string, dest string, noDir bool) {
	if noDir || dest == "" {
		return
	}
	for _, s := range sources {
		if strings.ContainsAny(baseName(s), "*?[") {
			// The names come from the source's directory, not dest's: a
			// glob here would match dest's entries instead.
			continue
		}
		if d := strings.TrimRight(dest, "/"); d == "" {
			st.write("/" + baseName(s))
		} else {
			st.write(d + "/" + baseName(s))
		}
	}
}

// baseName is the last segment of p, trailing slashes ignored.
func baseName(p string) string {
	p = strings.TrimRight(p, "/")
	if k := strings.LastIndexByte(p, '/'); k >= 0 {
		return p[k+1:]
	}
	return p
}

// run parses args (the words after the program or subcommand) against s.
func (st *state) run(s *spec, args []string) {
	st.spec = s
	if s.anyArgs {
		if st.parse {
			st.ops = append(st.ops, args...)
		}
		st.finish(s)
		return
	}
	endOpts := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if endOpts || len(a) < 2 || a[0] != '-' {
			if !endOpts && strings.HasPrefix(a, Dynamic) && (!s.harmless || st.parse) {
				why := s.name + ": the word " + printable(a) + " is only known at run time and may be an option"
				st.fail(why)
				st.lost(s, why, st.at(args, i), true)
				st.unknown = true
				st.bestEffort(s, args[i:])
				return
			}
			if s.subs != nil && len(st.ops) == 0 && (!s.subFallback || s.subs[a] != nil) {
				st.dispatch(s, a, args[i+1:])
				return
			}
			if s.runs > 0 && len(st.ops) == s.runs-1 {
				st.startCommand(s, args, i)
				return
			}
			st.ops = append(st.ops, a)
			if s.posix {
				endOpts = true
			}
			continue
		}
		if a == "--" {
			if s.subs != nil && len(st.ops) == 0 && !s.subFallback {
				st.fail(s.name + ": -- before the subcommand")
				st.lost(s, s.name+": -- before the subcommand", st.at(args, i), false)
				return
			}
			endOpts = true
			continue
		}
		var ok bool
		start := i
		if s.single || a[1] == '-' {
			i, ok = st.longOpt(s, a, args, i)
		} else {
			i, ok = st.shortOpts(s, a, args, i)
		}
		if !ok {
			st.lost(s, s.name+": option "+printable(a)+" is not understood", st.at(args, start), strings.Contains(a, Dynamic))
			st.unknown = true
			st.bestEffort(s, args[i+1:])
			return
		}
	}
	if s.subs != nil && len(st.ops) == 0 {
		if s.noSub != "" {
			st.fail(s.noSub)
		}
	}
	st.finish(s)
}

// startCommand handles the command a program runs, starting at args[i]:
// Verdict.Runs points at it, or it is recorded as a command line. The
// program's own operands and options end there.
func (st *state) startCommand(s *spec, args []string, i int) {
	if st.parse {
		// Rules see the command's words as operands ("ssh host rm:*").
		st.ops = append(st.ops, args[i:]...)
		st.finish(s)
		return
	}
	switch {
	case s.runsFlag != "" && isRunsFlag(s.runsFlag, args[i]):
		if _, v, ok := strings.Cut(args[i], "="); ok {
			st.command(s.name+" "+args[i][:strings.IndexByte(args[i], '=')], v, st.at(args, i))
		} else if i+1 < len(args) {
			st.command(s.name+" "+args[i], args[i+1], st.at(args, i+1))
		}
	case s.runsString:
		st.command(s.name, strings.Join(args[i:], " "), len(st.argv)-1)
	default:
		st.v.Runs = st.at(args, i)
	}
	st.finish(s)
}

// isRunsFlag reports whether w is one of the space-separated flags (or
// flag=value).
func isRunsFlag(flags, w string) bool {
	name, _, _ := strings.Cut(w, "=")
	for _, f := range strings.Fields(flags) {
		if name == f {
			return true
		}
	}
	return false
}

// bestEffort finishes a filesystem command whose options were not all
// understood: the remaining words that do not look like options are taken
// as operands, so that Writes still names the likely targets (FSCommand
// stays false: they cannot be trusted).
func (st *state) bestEffort(s *spec, rest []string) {
	if !s.fs && !s.writer {
		return
	}
	for _, w := range rest {
		if !strings.HasPrefix(w, "-") {
			st.ops = append(st.ops, w)
		}
	}
	st.finish(s)
}

// longOpt handles --name, --name=value and, for single-dash specs, -name.
func (st *state) longOpt(s *spec, a string, args []string, i int) (int, bool) {
	name, val, hasEq := a, "", false
	if k := strings.IndexByte(a, '='); k > 0 {
		name, val, hasEq = a[:k], a[k+1:], true
	}
	d, amb := s.lookupLong(name, st.parse)
	if d == nil {
		if amb != "" {
			st.fail(s.name + ": option " + name + " is ambiguous (" + amb + ")")
		} else {
			st.fail(s.name + ": option " + printable(name) + " is not in the read-only vocabulary")
		}
		return i, false
	}
	idx := st.at(args, i)
	hasVal := hasEq
	switch d.arity {
	case argNone:
		// pflag (cobra) takes --flag=true and --flag=false for a boolean;
		// either way the option is judged as given.
		if hasEq && !(s.noAbbrev && boolValue(val)) {
			st.fail(s.name + ": option " + d.name + " takes no value")
			return i, false
		}
		if !hasEq && s.noptValue(args, i) {
			i++
		}
	case argReq:
		if !hasEq {
			if i+1 >= len(args) {
				if st.parse {
					st.record(d, "", false)
					return i, true
				}
				st.fail(s.name + ": option " + d.name + " needs a value")
				return i, false
			}
			i++
			val, idx, hasVal = args[i], st.at(args, i), true
		}
	case argLast:
		if !hasEq && i+1 < len(args) {
			i++
			val, idx, hasVal = args[i], st.at(args, i), true
		}
	case argTwo:
		if hasEq {
			st.fail(s.name + ": option " + d.name + " takes two separate values")
			return i, false
		}
		if i+2 >= len(args) {
			if st.parse {
				st.record(d, "", false)
				return len(args) - 1, true
			}
			st.fail(s.name + ": option " + d.name + " needs two values")
			return i, false
		}
		i += 2
		val, idx, hasVal = args[i], st.at(args, i), true
	}
	st.apply(s, d, name, val, idx, hasVal)
	return i, true
}

// noptValue reports a word "true" or "false" after the boolean option at
// args[i] that npm's parser takes as its value (spec.nopt).
func (s *spec) noptValue(args []string, i int) bool {
	return s.nopt && i+1 < len(args) && (args[i+1] == "true" || args[i+1] == "false")
}

// shortOpts handles a cluster of short options: -la, -n5, -n 5, -20.
func (st *state) shortOpts(s *spec, a string, args []string, i int) (int, bool) {
	// A whole-word long option declared with one dash (xxd -ps, git branch -vv).
	if len(a) > 2 && s.dashWords {
		if d, _ := s.lookupLong(a, st.parse); d != nil && d.name == a {
			return st.longOpt(s, a, args, i)
		}
		if k := strings.IndexByte(a, '='); k > 2 {
			if d, _ := s.lookupLong(a[:k], st.parse); d != nil && d.name == a[:k] {
				return st.longOpt(s, a, args, i)
			}
		}
	}
	idx := st.at(args, i)
	for j := 1; j < len(a); j++ {
		c := a[j]
		if s.num && c >= '0' && c <= '9' {
			for j+1 < len(a) && a[j+1] >= '0' && a[j+1] <= '9' {
				j++
			}
			continue
		}
		var d *flagDef
		if c < 128 && s.short[c] != 0 {
			d = &s.defs[s.short[c]-1]
		}
		if d != nil && d.parseOnly && !st.parse {
			d = nil
		}
		if d == nil {
			st.fail(s.name + ": option -" + printable(string(c)) + " is not in the read-only vocabulary")
			return i, false
		}
		switch d.arity {
		case argNone:
			st.apply(s, d, d.name, "", idx, false)
			if j == len(a)-1 && s.noptValue(args, i) {
				return i + 1, true
			}
			continue
		case argOpt:
			st.apply(s, d, d.name, a[j+1:], idx, j+1 < len(a))
			return i, true
		case argReq, argLast:
			val := a[j+1:]
			if val == "" {
				if i+1 >= len(args) {
					if d.arity == argLast {
						st.apply(s, d, d.name, "", idx, false)
						return i, true
					}
					if st.parse {
						st.record(d, "", false)
						return i, true
					}
					st.fail(s.name + ": option " + d.name + " needs a value")
					return i, false
				}
				i++
				val, idx = args[i], st.at(args, i)
			}
			st.apply(s, d, d.name, val, idx, true)
			return i, true
		case argTwo:
			if j+1 < len(a) || i+2 >= len(args) {
				if st.parse && j+1 == len(a) {
					st.record(d, "", false)
					return len(args) - 1, true
				}
				st.fail(s.name + ": option " + d.name + " needs two separate values")
				return i, false
			}
			st.apply(s, d, d.name, args[i+2], st.at(args, i+2), true)
			return i + 2, true
		}
	}
	return i, true
}

// apply records the effect of one option. idx is the argv index of the
// word holding the value (the option's own word when there is none), and
// hasVal says whether a value was given.
func (st *state) apply(s *spec, d *flagDef, typed, val string, idx int, hasVal bool) {
	if st.parse {
		st.record(d, val, hasVal)
		return
	}
	if d.canon == "--help" || d.canon == "--version" || d.name == "--help" || d.name == "--version" {
		st.help = true
	}
	if d.deny != "" {
		shown := d.name
		if typed != d.name {
			shown = typed + " (" + d.name + ")"
		}
		st.fail(s.name + ": option " + shown + " " + d.deny)
	}
	switch d.role {
	case roleRead:
		st.read(val)
	case roleWrite:
		st.write(val)
		// A file an option names is written like a redirect's: an allow
		// rule covers it only when it spells the option and its value out
		// (Bash(git diff:*) does not cover git diff --output=/tmp/x).
		st.codeWord(idx)
	case roleCmd:
		if hasVal {
			st.command(s.name+" "+d.canon, val, idx)
		}
	case roleCode:
		if hasVal || d.arity == argNone {
			st.codeWord(idx)
			st.runsUnknown(s.name + " " + d.canon + " runs code permopa cannot read")
		}
	}
	if d.mark != 0 {
		st.marks |= 1 << (d.mark - 'a')
		st.vals = append(st.vals, markVal{d.mark, val, idx})
	}
	if d.deny != "" {
		shown := d.name
		if typed != d.name {
			shown = typed + " (" + d.name + ")"
		}
		st.fail(s.name + ": option " + shown + " " + d.deny)
	}
}

// expandOld rewrites old-style options ("tar xzf a.tgz") as ordinary
// ones ("tar -x -z -f a.tgz"); letters the spec does not know stay as
// unknown options.
func (s *spec) expandOld(argv []string) []string {
	out := make([]string, 0, len(argv)+len(argv[1]))
	out = append(out, argv[0])
	next := 2
	for i := 0; i < len(argv[1]); i++ {
		c := argv[1][i]
		out = append(out, "-"+string(c))
		if c < 128 && s.short[c] != 0 {
			if d := &s.defs[s.short[c]-1]; d.arity == argReq && next < len(argv) {
				out = append(out, argv[next])
				next++
			}
		}
	}
	return append(out, argv[next:]...)
}

// record adds an option, and those it implies, to the Invocation (Parse).
func (st *state) record(d *flagDef, val string, hasVal bool) {
	st.inv.Options = append(st.inv.Options, Option{Name: d.canon, Value: val, HasValue: hasVal})
	for _, im := range d.implies {
		st.inv.Options = append(st.inv.Options, Option{Name: im})
	}
}

// dispatch selects the subcommand word and parses the rest with its spec.
func (st *state) dispatch(s *spec, word string, rest []string) {
	if strings.Contains(word, Dynamic) {
		st.v.Subcommand = joinSub(s.subPath, printable(word))
		st.fail(s.name + ": the subcommand is only known at run time")
		if !st.parse && s.check != nil {
			s.check(st)
		}
		if st.parse {
			st.inv.Subcommand, st.inv.SubcommandOpen = s.subPath, true
		}
		st.lost(s, s.name+": the subcommand is only known at run time", len(st.argv)-len(rest)-1, true)
		return
	}
	if st.parse {
		st.inv.SubcommandEnd = len(st.argv) - len(rest)
	}
	if s.alias != nil {
		if a := s.alias(word); a != word {
			word = a
			if st.parse {
				st.inv.SubcommandAlias = true
			}
		}
	}
	sub := s.kid(word)
	if sub == nil {
		st.v.Subcommand = joinSub(s.subPath, word)
		st.fail(s.name + " " + word + " is not in the read-only vocabulary")
		if !st.parse && s.check != nil {
			// The options before it still count (git -c alias.x=!cmd x).
			s.check(st)
		}
		if st.parse {
			st.inv.Subcommand, st.inv.Unmodelled = st.v.Subcommand, true
			st.lost(s, s.name+" "+word+": the subcommand's options are not modelled", 0, false)
		}
		return
	}
	st.v.Subcommand = sub.subPath
	if st.parse {
		st.inv.Subcommand = sub.subPath
	} else if s.check != nil {
		// The parent's check sees the options given before the subcommand.
		s.check(st)
	}
	if sub.group && sub.subs == nil {
		// A group with no read-only subcommand: still name the second word.
		for k, w := range rest {
			if !strings.HasPrefix(w, "-") {
				st.v.Subcommand = joinSub(sub.subPath, w)
				if st.parse {
					st.inv.SubcommandEnd = len(st.argv) - len(rest) + k + 1
				}
				break
			}
		}
		if st.parse {
			st.inv.Subcommand, st.inv.Unmodelled = st.v.Subcommand, true
			st.lost(sub, sub.name+": the subcommand's options are not modelled", 0, false)
			return
		}
	}
	if sub.never != "" && !sub.fs && !sub.writer && sub.subs == nil {
		st.fail(sub.never)
		if st.parse && sub.allow == "" && sub.deny == nil && !sub.anyArgs {
			st.inv.Unmodelled = true
		}
		// Options are still read when the spec lists them: for Parse, and
		// for the commands some of them run (git rebase --exec).
		if st.parse || sub.allow != "" || sub.deny != nil || sub.anyArgs || sub.runs > 0 {
			st.run(sub, rest)
		}
		return
	}
	st.run(sub, rest)
}

func joinSub(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// finish applies the operand policy and the check hook.
func (st *state) finish(s *spec) {
	if st.parse {
		for _, o := range st.ops {
			if s.operand != nil {
				var implied []string
				o, implied = s.operand(o)
				for _, im := range implied {
					st.inv.Options = append(st.inv.Options, Option{Name: im})
				}
			}
			st.inv.Operands = append(st.inv.Operands, o)
		}
		return
	}
	if s.maxOps > 0 && len(st.ops) > s.maxOps {
		st.fail(s.name + ": extra operand " + printable(st.ops[s.maxOps]) + " (an output file)")
	}
	switch s.ops {
	case opsRead:
		for _, o := range st.ops {
			st.read(o)
		}
	case opsPatRead:
		ops := st.ops
		if !st.has('e') && len(ops) > 0 {
			ops = ops[1:]
		}
		for _, o := range ops {
			st.read(o)
		}
	case opsNone:
		if len(st.ops) > 0 {
			st.fail(s.name + ": operand " + printable(st.ops[0]) + " is not allowed")
		}
	case opsGit:
		for _, o := range st.ops {
			st.read(o)
			if k := strings.IndexByte(o, ':'); k >= 0 && k+1 < len(o) && !strings.Contains(o[:k], "/") {
				p := o[k+1:]
				// :N:path names a stage of the index.
				if k == 0 && len(p) > 2 && p[0] >= '0' && p[0] <= '3' && p[1] == ':' {
					p = p[2:]
				}
				st.read(p)
			}
		}
	}
	if s.check != nil {
		s.check(st)
	}
	if s.never != "" {
		st.fail(s.never)
	}
	if s.network != "" && st.v.Network == "" && !(st.help && s.network == NetRead && !s.netAlways) {
		st.v.Network = s.network
	}
	if len(s.cache) > 0 {
		st.v.CacheWrites = append(st.v.CacheWrites, s.cache...)
	}
}

// egress records that the invocation sends to a destination named in its
// own arguments: never read-only.
func (st *state) egress(what string) {
	st.v.Network = NetEgress
	st.fail(st.spec.name + ": sends to " + printable(what) + ", a destination named in its arguments (network egress)")
}

// printable replaces the Dynamic marker so reasons stay readable.
func printable(s string) string {
	if !strings.Contains(s, Dynamic) {
		return s
	}
	return strings.ReplaceAll(s, Dynamic, "$…")
}
