package hookproto

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// The markers of Codex's apply_patch format (docs/hosts.md#codex).
const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	patchAdd    = "*** Add File: "
	patchDelete = "*** Delete File: "
	patchUpdate = "*** Update File: "
	patchMove   = "*** Move to: "
	patchEOF    = "*** End of File"
)

// MaxPatchFiles caps the file operations of one apply_patch call: each is
// a decision, and a payload may be 16 MiB (MaxPayload).
const MaxPatchFiles = 1000

type patchCall struct{ tool, path string }

// patchCalls reads the file operations of a Codex apply_patch patch as
// Codex's own parser reads them, and returns one call per path it would
// touch: "*** Add File: p" is a Write of p, "*** Update File: p" and
// "*** Delete File: p" Edits of p, "*** Move to: q" a Write of q. Relative
// paths are resolved against cwd, "~" and "~/…" are left for the policy to
// expand (Codex expands them to the home directory).
//
// What Codex reads (docs/hosts.md#codex): the whole text trimmed of
// surrounding white space, split into lines at "\n" (a "\r" before it
// dropped); the first line, trimmed, must be "*** Begin Patch" and the
// last "*** End Patch", or the patch may be wrapped in a heredoc (a first
// line <<EOF, <<'EOF' or <<"EOF" and a last line ending in EOF). A hunk
// header is matched after trimming the line, so "\t*** Add File: p" is a
// header; "*** Move to: " must start the line right after an update
// header. A patch Codex would refuse is an error: the hook then blocks it,
// naming the line, since permopa cannot say what would be written.
//
// Defence in depth: any other line that, trimmed, starts with a file
// marker (an update's context line " *** Add File: p", a Move to
// elsewhere) is checked too, as the call of its marker, so that no reading
// of the patch touches a path the decision did not see.
func patchCalls(patch, cwd string) ([]patchCall, error) {
	ops, err := parsePatch(patch)
	if err != nil {
		return nil, err
	}
	seen := make(map[patchCall]bool, len(ops))
	var out []patchCall
	add := func(c patchCall) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	for _, c := range ops {
		add(c)
	}
	for _, line := range strings.Split(patch, "\n") {
		if c, ok := patchHeader(strings.TrimSpace(line)); ok {
			add(c)
		}
	}
	if len(out) > MaxPatchFiles {
		return nil, fmt.Errorf("tool_input.command: the patch touches %d files, more than the %d permopa decides in one call", len(out), MaxPatchFiles)
	}
	for i := range out {
		out[i].path = patchPath(out[i].path, cwd)
	}
	return out, nil
}

// patchHeader reads a trimmed line as a file header of any kind.
func patchHeader(line string) (patchCall, bool) {
	for _, m := range []struct{ marker, tool string }{
		{patchAdd, "Write"}, {patchUpdate, "Edit"}, {patchDelete, "Edit"}, {patchMove, "Write"},
	} {
		if p, ok := strings.CutPrefix(line, m.marker); ok && p != "" {
			return patchCall{m.tool, p}, true
		}
	}
	return patchCall{}, false
}

// patchPath is the path Codex writes for p: absolute as given, "~" and
// "~/…" under the home directory (left to the policy, which expands them),
// anything else relative to cwd.
func patchPath(p, cwd string) string {
	if filepath.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/") || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

// parsePatch follows the grammar and the leniency of Codex's apply_patch
// parser and returns the file operations in order, paths as written.
func parsePatch(patch string) ([]patchCall, error) {
	lines := strings.Split(strings.TrimSpace(patch), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	first := 1 // the line number of lines[0]
	if !patchFramed(lines) {
		n := len(lines)
		heredoc := n >= 4 && (lines[0] == "<<EOF" || lines[0] == "<<'EOF'" || lines[0] == `<<"EOF"`) && strings.HasSuffix(lines[n-1], "EOF")
		if !heredoc || !patchFramed(lines[1:n-1]) {
			return nil, fmt.Errorf("tool_input.command: not an apply_patch patch Codex reads: the first line must be %q and the last %q", patchBegin, patchEnd)
		}
		lines, first = lines[1:n-1], 2
	}
	body := lines[1 : len(lines)-1]
	lineNo := func(i int) int { return first + 1 + i }
	bad := func(i int, format string, args ...any) error {
		return fmt.Errorf("tool_input.command: line %d of the patch: %s; Codex refuses such a patch", lineNo(i), fmt.Sprintf(format, args...))
	}
	var ops []patchCall
	for i := 0; i < len(body); {
		header := strings.TrimSpace(body[i])
		if p, ok := strings.CutPrefix(header, patchAdd); ok {
			ops = append(ops, patchCall{"Write", p})
			for i++; i < len(body) && strings.HasPrefix(body[i], "+"); i++ {
			}
			continue
		}
		if p, ok := strings.CutPrefix(header, patchDelete); ok {
			ops = append(ops, patchCall{"Edit", p})
			i++
			continue
		}
		p, ok := strings.CutPrefix(header, patchUpdate)
		if !ok {
			return nil, bad(i, "%q is not a hunk header (*** Add File, *** Delete File, *** Update File)", header)
		}
		start := i
		ops = append(ops, patchCall{"Edit", p})
		i++
		// The move must be the very next line, untrimmed.
		if i < len(body) {
			if q, ok := strings.CutPrefix(body[i], patchMove); ok {
				ops = append(ops, patchCall{"Write", q})
				i++
			}
		}
		chunks := 0
		for i < len(body) {
			if strings.TrimSpace(body[i]) == "" {
				i++
				continue
			}
			if strings.HasPrefix(body[i], "*") {
				break
			}
			if body[i] == "@@" || strings.HasPrefix(body[i], "@@ ") {
				i++
			} else if chunks > 0 {
				return nil, bad(i, "expected an @@ line to start the next change of %q, got %q", p, body[i])
			}
			if i >= len(body) {
				return nil, bad(i-1, "a change of %q has no lines", p)
			}
			n := 0
		chunk:
			for ; i < len(body); i++ {
				l := body[i]
				if l == patchEOF {
					if n == 0 {
						return nil, bad(i, "a change of %q has no lines", p)
					}
					i++
					break
				}
				switch {
				case l == "", l[0] == ' ', l[0] == '+', l[0] == '-':
					n++
				case n == 0:
					return nil, bad(i, "unexpected line %q in a change of %q (lines start with ' ', '+' or '-')", l, p)
				default:
					break chunk
				}
			}
			chunks++
		}
		if chunks == 0 {
			return nil, bad(start, "the update of %q has no change", p)
		}
	}
	return ops, nil
}

// patchFramed says whether lines open with the begin marker and close with
// the end marker, each trimmed.
func patchFramed(lines []string) bool {
	return len(lines) >= 2 && strings.TrimSpace(lines[0]) == patchBegin && strings.TrimSpace(lines[len(lines)-1]) == patchEnd
}

// changesDir finds a directory change in a shell script. Compiled on
// first use: most hook calls carry no patch, and a hook process pays its
// package initialisation on every call (BENCHMARKS.md, "Hooks").
var changesDir = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s;&|(])(cd|pushd)(\s|$)`)
})

// shellPatchCalls are the file calls of an apply_patch run from a shell
// command: Codex intercepts `apply_patch <<'EOF' … EOF` (and an argv
// apply_patch PATCH) in its shell tool and applies the patch itself, so the
// shell command is also decided as the Write and Edit calls of every
// header-like line of the script, when it holds "*** Begin Patch". Relative
// paths are resolved against cwd; after a cd they could point anywhere, so
// such a script is an error (the hook blocks it; the apply_patch tool
// takes the same patch).
func shellPatchCalls(script, cwd string) ([]patchCall, error) {
	if !strings.Contains(script, patchBegin) {
		return nil, nil
	}
	var out []patchCall
	seen := map[patchCall]bool{}
	for _, line := range strings.Split(script, "\n") {
		c, ok := patchHeader(strings.TrimSpace(line))
		if !ok || seen[c] {
			continue
		}
		seen[c] = true
		if !filepath.IsAbs(c.path) && c.path != "~" && !strings.HasPrefix(c.path, "~/") && changesDir().MatchString(script) {
			return nil, errors.New("tool_input.command: runs apply_patch after changing directory (cd): permopa cannot tell where the patch's relative path " + ShellQuote(c.path) + " points; use the apply_patch tool")
		}
		out = append(out, c)
	}
	if len(out) > MaxPatchFiles {
		return nil, fmt.Errorf("tool_input.command: the patch touches %d files, more than the %d permopa decides in one call", len(out), MaxPatchFiles)
	}
	for i := range out {
		out[i].path = patchPath(out[i].path, cwd)
	}
	return out, nil
}
