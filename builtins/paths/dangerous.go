package paths

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/permopa/permopa/builtins/internal/lru"
)

// Edits changes a default list: names to add and names to remove. Names are
// compared case-insensitively and may be globs of one or more path segments
// ("*.pem", ".config/gh", "id_*").
type Edits struct {
	Add    []string `json:"add,omitempty"    yaml:"add,omitempty"    mapstructure:"add"`
	Remove []string `json:"remove,omitempty" yaml:"remove,omitempty" mapstructure:"remove"`
}

// Config is the settings block `dangerous_paths`. The zero Config is the
// defaults (docs/decision.md, "Dangerous and credential paths").
//
// A path is a dangerous file when its trailing segments (usually just the
// basename) match a file name, and lies in a dangerous directory when any run
// of its segments matches a directory name (the directory itself included).
// A removed name stops matching: it is an exception checked before everything
// else, so removing ".env.local" keeps the default ".env.*" for every other
// name, and removing ".ssh" drops the directory rule (id_rsa stays dangerous
// through its file rule). An added name matches even where a default
// exception (".env.example", "*.pub" for private keys) would not.
type Config struct {
	Files       Edits `json:"files"       yaml:"files"       mapstructure:"files"`
	Directories Edits `json:"directories" yaml:"directories" mapstructure:"directories"`
	// CodeRunning edits the files that make tools run code later
	// (protected.go); they match like directories.
	CodeRunning Edits `json:"code_running" yaml:"code_running" mapstructure:"code_running"`
}

// The defaults. A credential entry protects reads too; for a directory it
// covers the directory and everything below it.
var (
	defaultFiles = []entrySpec{
		{name: ".bashrc"}, {name: ".bash_profile"}, {name: ".bash_login"},
		{name: ".zshrc"}, {name: ".zprofile"}, {name: ".zshenv"}, {name: ".profile"},
		{name: ".gitconfig"}, {name: ".gitmodules"},
		{name: ".netrc", credential: true}, {name: ".npmrc", credential: true}, {name: ".pypirc", credential: true},
		{name: ".env", credential: true}, {name: ".envrc", credential: true},
		{name: ".env.*", credential: true, except: []string{".env.example"}},
		// Private keys, also under a suffix (id_ed25519_work, id_ecdsa_sk), not their public halves.
		{name: "id_rsa*", credential: true, except: []string{"*.pub"}},
		{name: "id_dsa*", credential: true, except: []string{"*.pub"}},
		{name: "id_ecdsa*", credential: true, except: []string{"*.pub"}},
		{name: "id_ed25519*", credential: true, except: []string{"*.pub"}},
		{name: "authorized_keys"},
		{name: ".docker/config.json", credential: true},
		// A permopa server's tokens, where it writes them (docs/opa.md §7):
		// with one, a caller confirms rules over TCP.
		{name: ".config/permopa/server-token", credential: true}, {name: ".config/permopa/server-admin-token", credential: true},
	}
	defaultDirectories = []entrySpec{
		{name: ".git"}, {name: ".ssh", credential: true}, {name: ".aws", credential: true},
		{name: ".kube", credential: true}, {name: ".gnupg", credential: true}, {name: ".docker"},
		{name: ".vscode"}, {name: ".idea"},
		{name: ".config/gh", credential: true}, {name: ".config/git"},
	}
)

type entrySpec struct {
	name       string
	credential bool
	// except lists globs of last segments the entry does not cover.
	except []string
	// label says what the name is when it is not what its list says
	// (agent instruction files among the code-running files).
	label string
}

// entry is one compiled name: lowercased segments, each a literal or a glob.
type entry struct {
	name       string
	parts      []part
	credential bool
	except     []string
	label      string
}

// part is one segment of a name: a literal, or a glob with its literal prefix.
type part struct {
	s      string
	glob   bool
	prefix string
}

func (p part) match(seg string) bool {
	if !p.glob {
		return p.s == seg
	}
	return strings.HasPrefix(seg, p.prefix) && doublestar.MatchUnvalidated(p.s, seg)
}

// nameSet is a compiled list of names: single literal segments in a map, the
// rest (globs, several segments) in a slice.
type nameSet struct {
	single map[string]*entry
	multi  []*entry
}

func compileSet(specs []entrySpec) (nameSet, error) {
	s := nameSet{single: make(map[string]*entry, len(specs))}
	for _, sp := range specs {
		name := strings.Trim(strings.ToLower(strings.TrimSpace(sp.name)), "/")
		if name == "" {
			return s, fmt.Errorf("empty name %q", sp.name)
		}
		segs := strings.Split(name, "/")
		parts := make([]part, len(segs))
		glob := false
		for i, p := range segs {
			if p == "" || p == "." || p == ".." {
				return s, fmt.Errorf("name %q: empty, . or .. segment", sp.name)
			}
			parts[i].s = p
			if m := strings.IndexAny(p, "*?[{\\"); m >= 0 {
				if !doublestar.ValidatePattern(p) {
					return s, fmt.Errorf("name %q: bad glob", sp.name)
				}
				glob = true
				parts[i].glob, parts[i].prefix = true, p[:m]
			}
		}
		e := &entry{name: sp.name, parts: parts, credential: sp.credential, except: sp.except, label: sp.label}
		if len(parts) == 1 && !glob {
			if old, ok := s.single[name]; ok {
				old.credential = old.credential || e.credential
				continue
			}
			s.single[name] = e
			continue
		}
		s.multi = append(s.multi, e)
	}
	return s, nil
}

func namesOf(names []string) []entrySpec {
	out := make([]entrySpec, len(names))
	for i, n := range names {
		out[i] = entrySpec{name: n}
	}
	return out
}

// matchEnd returns the first entry whose segments match the run of segs that
// ends at segs[end], preferring a credential entry.
func (s *nameSet) matchEnd(segs []string, end int) *entry {
	var found *entry
	if e, ok := s.single[segs[end]]; ok {
		if e.credential {
			return e
		}
		found = e
	}
	for _, e := range s.multi {
		if found != nil && !e.credential {
			continue
		}
		k := len(e.parts)
		if k > end+1 {
			continue
		}
		ok := true
		for j, p := range e.parts {
			if !p.match(segs[end-k+1+j]) {
				ok = false
				break
			}
		}
		if ok && slices.ContainsFunc(e.except, func(x string) bool { return doublestar.MatchUnvalidated(x, segs[end]) }) {
			ok = false
		}
		if ok {
			if e.credential {
				return e
			}
			found = e
		}
	}
	return found
}

// Classifier is a compiled Config. It is immutable and safe for concurrent use.
type Classifier struct {
	files, fileAdd, fileRemove nameSet
	dirs, dirAdd, dirRemove    nameSet
	// locked are the protected settings (no edit applies), code the files
	// that make tools run code (protected.go).
	locked                    nameSet
	code, codeAdd, codeRemove nameSet
}

// Compile checks and compiles c.
func (c Config) Compile() (*Classifier, error) {
	var cl Classifier
	var errs []error
	set := func(dst *nameSet, what string, specs []entrySpec) {
		s, err := compileSet(specs)
		if err != nil {
			errs = append(errs, fmt.Errorf("dangerous_paths.%s: %w", what, err))
		}
		*dst = s
	}
	set(&cl.files, "files (default)", slices.Concat(defaultFiles, secretFiles))
	set(&cl.dirs, "directories (default)", slices.Concat(defaultDirectories, secretDirectories))
	set(&cl.fileAdd, "files.add", namesOf(c.Files.Add))
	set(&cl.fileRemove, "files.remove", namesOf(c.Files.Remove))
	set(&cl.dirAdd, "directories.add", namesOf(c.Directories.Add))
	set(&cl.dirRemove, "directories.remove", namesOf(c.Directories.Remove))
	set(&cl.locked, "protected (default)", protectedNames)
	set(&cl.code, "code_running (default)", defaultCodeRunning)
	set(&cl.codeAdd, "code_running.add", namesOf(c.CodeRunning.Add))
	set(&cl.codeRemove, "code_running.remove", namesOf(c.CodeRunning.Remove))
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &cl, nil
}

var (
	// defaultClassifier is compiled on first use, not at package
	// initialisation (each process start would pay for it);
	// TestDefaultClassifierCompiles forces it in the quick suite.
	defaultClassifier = sync.OnceValue(func() *Classifier {
		c, err := Config{}.Compile()
		if err != nil {
			panic(err)
		}
		return c
	})
	classifiers = lru.New[string, *Classifier](256)
)

// Default returns the classifier of the default Config.
func Default() *Classifier { return defaultClassifier() }

// IsDefault reports whether c changes nothing.
func (c Config) IsDefault() bool {
	return len(c.Files.Add)+len(c.Files.Remove)+len(c.Directories.Add)+len(c.Directories.Remove)+
		len(c.CodeRunning.Add)+len(c.CodeRunning.Remove) == 0
}

// Key is a string that identifies c; equal Configs have equal keys.
func (c Config) Key() string {
	var b strings.Builder
	for _, l := range [][]string{c.Files.Add, c.Files.Remove, c.Directories.Add, c.Directories.Remove,
		c.CodeRunning.Add, c.CodeRunning.Remove} {
		for _, n := range l {
			b.WriteString(n)
			b.WriteByte(0)
		}
		b.WriteByte(1)
	}
	return b.String()
}

// Compiled is Compile through a process-wide bounded cache keyed by Key, so
// that a Config read from settings is compiled once.
func Compiled(c Config) (*Classifier, error) {
	if c.IsDefault() {
		return defaultClassifier(), nil
	}
	k := c.Key()
	if cl, ok := classifiers.Get(k); ok {
		return cl, nil
	}
	cl, err := c.Compile()
	if err != nil {
		return nil, err
	}
	classifiers.Put(k, cl)
	return cl, nil
}

// Classify says whether the clean absolute path p is dangerous, whether it is
// a credential path (reads are protected too; every credential path is also
// dangerous), and why: the reason names the matched segment as written in p
// ("`.ssh` directory", "`.bashrc` file", "`.config/gh` directory").
// Segments are compared case-insensitively. A nil cfg is Default().
func Classify(p string, cfg *Classifier) (dangerous, credential bool, reason string) {
	if cfg == nil {
		cfg = defaultClassifier()
	}
	return cfg.Classify(p)
}

// Classify is the function Classify with c.
func (c *Classifier) Classify(p string) (dangerous, credential bool, reason string) {
	var segsBuf, origBuf [32]string
	lower := strings.ToLower(p)
	segs := splitSegments(lower, segsBuf[:0])
	if len(segs) == 0 {
		return false, false, ""
	}
	orig := segs
	if lower != p {
		orig = splitSegments(p, origBuf[:0])
		if len(orig) != len(segs) { // non-ASCII case mapping changed the shape
			orig = segs
		}
	}
	last := len(segs) - 1
	if name, ok := rawDiskDevice(lower); ok {
		return true, true, "raw disk device `/dev/" + name + "`"
	}

	// Protected settings and files that make tools run code are dangerous
	// to write too (protected.go); no edit of the file and directory lists
	// changes that.
	defer func() {
		if dangerous {
			return
		}
		if r, ok := c.protectedSegs(segs, orig); ok {
			dangerous, reason = true, r
		} else if r, ok := c.codeSegs(segs, orig); ok {
			dangerous, reason = true, r
		}
	}()

	// The file rules look at the trailing segments.
	if e := c.fileMatch(segs, last); e != nil {
		dangerous, credential = true, e.credential
		reason = describe(orig, last, len(e.parts), "file")
		if credential {
			return
		}
	}
	// The directory rules look at every run of segments, the last included.
	for end := 0; end <= last; end++ {
		e := c.dirMatch(segs, end)
		if e == nil {
			continue
		}
		if !dangerous || (e.credential && !credential) {
			reason = describe(orig, end, len(e.parts), "directory")
		}
		dangerous = true
		if e.credential {
			credential = true
			return
		}
	}
	return
}

func (c *Classifier) fileMatch(segs []string, end int) *entry {
	if c.fileRemove.matchEnd(segs, end) != nil {
		return nil
	}
	if e := c.fileAdd.matchEnd(segs, end); e != nil {
		return e
	}
	return c.files.matchEnd(segs, end)
}

func (c *Classifier) dirMatch(segs []string, end int) *entry {
	if c.dirRemove.matchEnd(segs, end) != nil {
		return nil
	}
	if e := c.dirAdd.matchEnd(segs, end); e != nil {
		return e
	}
	return c.dirs.matchEnd(segs, end)
}

func describe(segs []string, end, k int, kind string) string {
	if k > end+1 {
		k = end + 1
	}
	name := segs[end]
	if k > 1 {
		name = strings.Join(segs[end-k+1:end+1], "/")
	}
	return "`" + name + "` " + kind
}

// splitSegments appends the non-empty segments of p to dst.
func splitSegments(p string, dst []string) []string {
	for p != "" {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return append(dst, p)
		}
		if i > 0 {
			dst = append(dst, p[:i])
		}
		p = p[i+1:]
	}
	return dst
}
