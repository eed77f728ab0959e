package bash

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/scriptfile"
	"mvdan.cc/sh/v3/syntax"
)

// Analyze parses command and analyses every leaf. The result is cached per
// (command, options) in a bounded process-wide cache; callers must not modify it.
func Analyze(command string, opts Options) *Analysis {
	key := cacheKey(command, opts)
	if a, ok := analyses.get(key); ok && (len(a.stamps) == 0 || scriptfile.Fresh(a.stamps)) {
		return a
	}
	a := analyze(command, opts)
	if len(key) <= maxCachedKey {
		analyses.put(key, a)
	}
	return a
}

func cacheKey(command string, o Options) string {
	var b strings.Builder
	b.Grow(len(command) + len(o.Cwd) + len(o.Home) + 32)
	b.WriteString(command)
	b.WriteByte(0)
	b.WriteString(o.Cwd)
	b.WriteByte(0)
	b.WriteString(o.Home)
	for _, d := range o.WorkingDirectories {
		b.WriteByte(0)
		b.WriteString(d)
	}
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(o.MaxLength))
	b.WriteByte(',')
	b.WriteString(strconv.Itoa(o.MaxLeaves))
	if o.ShellPerCall {
		b.WriteString(",shell")
	}
	if o.StdinTerminal {
		b.WriteString(",tty")
	}
	if o.PositionalEmpty {
		b.WriteString(",noargs")
	}
	if o.GitPagerCat {
		b.WriteString(",gitpagercat")
	}
	return b.String()
}

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func parse(src string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	return f, err
}

func newAnalysis(home string) *Analysis {
	return &Analysis{
		Reasons: []string{}, NotReadOnly: []string{}, Leaves: make([]Leaf, 0, 4), Reads: []string{}, Writes: []string{},
		CriticalRemovals: []string{}, Dangerous: []Hit{}, CacheWrites: []string{}, GitDirs: []string{}, ProjectConfigs: []ProjectConfig{}, PathPrograms: []ProjectConfig{}, Removals: []string{}, home: home,
		RecursiveReads: []Tree{}, Environment: []string{},
	}
}

// analyze is Analyze without the cache. An analysis that read names from
// the file system while the command may change them first is done again
// without reading them (namesnow.go).
func analyze(command string, opts Options) *Analysis {
	res := analyzeOnce(command, opts, false)
	if res.listedNames != 0 && namesMayChange(res) {
		first := res
		res = analyzeOnce(command, opts, true)
		carryNameReasons(res, first)
	}
	return res
}

// analyzeOnce is one walk of the command; noListing keeps it from reading
// names from the file system.
func analyzeOnce(command string, opts Options, noListing bool) (res *Analysis) {
	defer func() {
		if r := recover(); r != nil {
			res = newAnalysis(opts.Home)
			res.Reasons = []string{"internal error"}
			res.NotReadOnly = []string{"internal error"}
		}
	}()
	if opts.Home != "" {
		opts.Home = filepath.Clean(opts.Home)
	}
	if opts.Cwd != "" {
		opts.Cwd = cleanAbs(opts.Cwd, "", opts.Home)
		if !filepath.IsAbs(opts.Cwd) {
			opts.Cwd = ""
		}
	}
	maxLen := opts.MaxLength
	if maxLen <= 0 {
		maxLen = DefaultMaxLength
	}
	maxLeaves := opts.MaxLeaves
	if maxLeaves <= 0 {
		maxLeaves = DefaultMaxLeaves
	}
	res = newAnalysis(opts.Home)
	w := &walker{opts: opts, src: command, res: res, maxLeaves: maxLeaves, noListing: noListing}
	if len(command) > maxLen {
		res.Truncated = true
		w.unanalysable(fmt.Sprintf("command longer than %d bytes", maxLen))
	}
	f, err := w.parseScript(command)
	if res.LimitExceeded != "" {
		return w.assemble()
	}
	if err != nil && strings.Contains(command, "$((") {
		// bash reads "$((" that is not arithmetic as "$( (": "echo $((rm x) )"
		// runs rm. Parse it that way, and do not call the result analysable.
		alt := strings.ReplaceAll(command, "$((", "$( (")
		f2, err2 := w.parseScript(alt)
		if res.LimitExceeded != "" {
			return w.assemble()
		}
		if err2 == nil {
			f, err = f2, nil
			command = alt
			w.src = alt
			w.unanalysableSeen("$(( is not arithmetic: read as a command substitution")
		}
	}
	if err != nil {
		res.Reasons = append(w.reasons, "parse error: "+err.Error())
		res.NotReadOnly = []string{"parse error"}
		res.crude = crudeArgvs(command)
		// bash may run parts of what does not parse here.
		res.hidden = "the command does not parse"
		return res
	}
	w.addRoot(f, command)
	w.topSrc = w.src
	if mayDefine(command) {
		w.prescan(f)
	}
	w.ifsChanged = w.ifsChanged || mayAssignIFS(command)
	w.globsChanged = w.globsChanged || mayChangeGlobs(command) || inheritedGlobOptions()
	st := state{unknown: true}
	if opts.Cwd != "" {
		st = state{dirs: []string{opts.Cwd}}
	}
	// Under a host that runs each call in a shell of its own, that shell
	// ends with the command: only the working directory carries over, and
	// the next call's payload names it (docs/hosts.md, "Shell state
	// between calls").
	if opts.PositionalEmpty {
		// bash -c COMMAND with no words after it: the command's positional
		// parameters are empty (positional.go), statement by statement
		// as in a script (set -- and shift change them).
		w.pos, w.posTop = &posParams{noSource: !bashSourceAssigned(f, command)}, true
	}
	w.walkStmts(f.Stmts, frame{tail: opts.ShellPerCall, blindRest: opts.ShellPerCall}, st)
	return w.assemble()
}

// assemble derives the command-level fields from the leaves.
func (w *walker) assemble() *Analysis {
	res := w.res
	res.stamps = w.files.Stamps()
	res.listedNames = w.listedNames
	w.gitDirInTheMaking()
	res.Reasons = append(res.Reasons, w.reasons...)
	res.Analysable = len(res.Reasons) == 0 && !res.Truncated
	res.DynamicWrites = w.dynWrites
	res.uncoverable = w.orphan
	allRO := true
	for i := range res.Leaves {
		lf := &res.Leaves[i]
		for _, p := range lf.Reads {
			res.Reads = appendUnique(res.Reads, p)
		}
		for _, p := range lf.Writes {
			res.Writes = appendUnique(res.Writes, p)
		}
		for _, p := range lf.Touches {
			res.Touches = appendUnique(res.Touches, p)
		}
		res.RecursiveReads = appendTrees(res.RecursiveReads, lf.RecursiveReads...)
		if lf.Environment != "" {
			res.Environment = appendUnique(res.Environment, lf.Program+": "+lf.Environment)
		}
		for _, p := range lf.CacheWrites {
			res.CacheWrites = appendUnique(res.CacheWrites, p)
		}
		if lf.Network == flagspec.NetRead {
			res.NetworkRead = true
		}
		if !lf.ReadOnly {
			allRO = false
			w.notReadOnly(lf.Program + ": " + lf.Reason)
		}
		if lf.ReadOnly {
			// A read-only program whose output is redirected to a file.
			for _, p := range lf.Writes {
				allRO = false
				w.notReadOnly(lf.Program + ": writes " + p + " by redirection")
			}
		}
	}
	readsNames(res)
	for _, p := range w.orphanWrites {
		res.Writes = appendUnique(res.Writes, p)
	}
	if !res.Analysable {
		for _, r := range res.Reasons {
			w.notReadOnly("not analysable: " + r)
		}
	}
	if len(res.Leaves) == 0 {
		w.notReadOnly("no command")
	}
	res.ReadOnly = res.Analysable && allRO && len(res.Leaves) > 0 && len(res.NotReadOnly) == 0
	return res
}

// analysisCache is a bounded, sharded cache. Each shard keeps two
// generations: when the current one is full it becomes the old one and the
// previous old one is dropped, so recently used entries survive.
type analysisCache struct {
	shards [32]cacheShard
}

type cacheShard struct {
	mu       sync.Mutex
	cur, old map[string]*Analysis
}

const cacheShardSize = 256

// maxCachedKey keeps very long commands out of the cache, which bounds its memory.
const maxCachedKey = 4096

var analyses = &analysisCache{}

func shardOf(key string) uint32 {
	// FNV-1a over at most the first and last 64 bytes: cheap and spreads well.
	h := uint32(2166136261)
	n := len(key)
	for i := 0; i < n && i < 64; i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	for i := max(64, n-64); i < n; i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	return h % 32
}

func (c *analysisCache) get(key string) (*Analysis, bool) {
	s := &c.shards[shardOf(key)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.cur[key]; ok {
		return a, true
	}
	if a, ok := s.old[key]; ok {
		s.store(key, a)
		return a, true
	}
	return nil, false
}

func (c *analysisCache) put(key string, a *Analysis) {
	s := &c.shards[shardOf(key)]
	s.mu.Lock()
	s.store(key, a)
	s.mu.Unlock()
}

func (s *cacheShard) store(key string, a *Analysis) {
	if s.cur == nil {
		s.cur = make(map[string]*Analysis, cacheShardSize)
	}
	if len(s.cur) >= cacheShardSize {
		s.old, s.cur = s.cur, make(map[string]*Analysis, cacheShardSize)
	}
	s.cur[key] = a
}

// mayDefine is a cheap test of whether src can define a function or alias
// or assign IFS; only then is the prescan walk needed.
func mayDefine(src string) bool {
	if strings.Contains(src, "IFS") || strings.Contains(src, "alias") || strings.Contains(src, "function") {
		return true
	}
	// name() or name ( ): an opening parenthesis followed by blanks and a closing one.
	for i := strings.IndexByte(src, '('); i >= 0; {
		j := i + 1
		for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\\' || src[j] == '\n') {
			j++
		}
		if j < len(src) && src[j] == ')' {
			return true
		}
		k := strings.IndexByte(src[i+1:], '(')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return false
}

// mayAssignIFS reports whether IFS may be named anywhere other than in a
// plain $IFS or ${IFS} expansion, quoting tricks included (read I\FS).
func mayAssignIFS(src string) bool {
	if !strings.Contains(src, "I") {
		return false
	}
	cleaned := strings.NewReplacer("\\", "", "'", "", "\"", "").Replace(src)
	named := strings.Count(cleaned, "IFS")
	expanded := strings.Count(src, "$IFS") + strings.Count(src, "${IFS}")
	return named > expanded
}

// maxCrude caps the argvs cut out of an unparsable command.
const maxCrude = 256

// crudeArgvs cuts an unparsable command at every shell operator, quoted or
// not, drops quotes and backslashes, and returns each piece's words from
// each word that is not an option.
// It over-approximates what bash could run, for deny and ask rules only
// (the command is never read-only nor covered).
func crudeArgvs(src string) [][]string {
	if len(src) > HardMaxLength {
		return nil
	}
	cut := strings.NewReplacer(";", "\n", "&", "\n", "|", "\n", "(", "\n", ")", "\n", "<", "\n", ">", "\n",
		"{", "\n", "}", "\n", "`", "\n", "$", "\n", "'", "", "\"", "", "\\", "").Replace(src)
	var out [][]string
	for _, piece := range strings.Split(cut, "\n") {
		words := strings.Fields(piece)
		for i := range words {
			if strings.HasPrefix(words[i], "-") {
				continue
			}
			out = append(out, words[i:])
			if len(out) >= maxCrude {
				return out
			}
		}
	}
	return out
}
