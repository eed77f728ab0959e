package permopa_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// mdLink is an inline Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// inlineCode is a code span, whose text is not a link.
var inlineCode = regexp.MustCompile("`[^`\n]*`")

// mdHeading is an ATX heading line.
var mdHeading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// markdownLines are a Markdown file's lines outside fenced code blocks.
func markdownLines(src string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// anchors are the fragment ids GitHub gives a Markdown file's headings:
// lower case, letters, digits, '-' and '_' kept, spaces made '-', every
// other character dropped; a repeated heading gets -1, -2, ...
func anchors(src string) map[string]bool {
	out := map[string]bool{}
	for _, line := range markdownLines(src) {
		m := mdHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text := strings.NewReplacer("`", "", "*", "").Replace(m[1])
		// A link in a heading counts by its text.
		text = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(text, "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		id := b.String()
		for n, base := 1, id; out[id]; n++ {
			id = base + "-" + itoa(n)
		}
		out[id] = true
	}
	return out
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestDocLinksResolve holds every relative link of the repository's
// Markdown files (README.md, docs/*.md, the others git tracks) to it: the file or directory it names exists,
// and a #fragment into a Markdown file names one of its headings. README.md
// is a router (docs/decision.md leads from it to each decision point's
// Rego, built-ins and tests): a link that leads nowhere breaks the way.
func TestDocLinksResolve(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "README.md")
	if out, err := exec.Command("git", "ls-files", "*.md").Output(); err == nil {
		for _, f := range strings.Fields(string(out)) {
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	cache := map[string]map[string]bool{}
	anchorsOf := func(file string) (map[string]bool, error) {
		if a, ok := cache[file]; ok {
			return a, nil
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		cache[file] = anchors(string(src))
		return cache[file], nil
	}
	checked := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lineNo := map[string]int{}
		for i, line := range strings.Split(string(src), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				if _, ok := lineNo[m[1]]; !ok {
					lineNo[m[1]] = i + 1
				}
			}
		}
		for _, line := range markdownLines(string(src)) {
			line = inlineCode.ReplaceAllString(line, "")
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				where := file + ":" + itoa(lineNo[target])
				path, frag, _ := strings.Cut(target, "#")
				resolved := file
				if path != "" {
					resolved = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(resolved); err != nil {
						t.Errorf("%s: link %s: %s does not exist", where, target, resolved)
						continue
					}
				}
				if frag == "" || !strings.HasSuffix(resolved, ".md") {
					continue
				}
				a, err := anchorsOf(resolved)
				if err != nil {
					t.Errorf("%s: link %s: %v", where, target, err)
					continue
				}
				if !a[frag] {
					t.Errorf("%s: link %s: %s has no heading whose anchor is #%s", where, target, resolved, frag)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("%d relative links checked in %d files; the check is blind", checked, len(files))
	}
}

// TestDecisionPointsIndex holds docs/decision.md's table of the decision
// points to the code: each of points 1 to 6 (and the faults) has a row;
// each row links the Rego file, the built-ins and the tests; every rule it
// names is defined in a Rego file it links, and every built-in it names is
// registered in a Go file it links. With README.md linking
// docs/decision.md, a reader reaches each point's code in three links.
func TestDecisionPointsIndex(t *testing.T) {
	src, err := os.ReadFile("docs/decision.md")
	if err != nil {
		t.Fatal(err)
	}
	const head = "| point | Rego | built-ins | tests |"
	_, table, ok := strings.Cut(string(src), head)
	if !ok {
		t.Fatalf("docs/decision.md has no table headed %q", head)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	cellLinks := func(cell string) []string {
		var out []string
		for _, m := range mdLink.FindAllStringSubmatch(cell, -1) {
			if !strings.HasPrefix(m[1], "#") {
				out = append(out, filepath.Join("docs", m[1]))
			}
		}
		return out
	}
	names := regexp.MustCompile("`([a-z_.]+)`")
	links := regexp.MustCompile(`\[[^\]]*\]\([^)]*\)`)
	read := func(files []string) string {
		var b strings.Builder
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Error(err)
			}
			b.Write(data)
			b.WriteByte('\n')
		}
		return b.String()
	}
	points := ""
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 6 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		rows++
		point, rego, builtins, tests := strings.TrimSpace(cells[1]), cells[2], cells[3], cells[4]
		points += point
		regoFiles, builtinFiles, testFiles := cellLinks(rego), cellLinks(builtins), cellLinks(tests)
		for _, f := range regoFiles {
			if !strings.HasPrefix(f, "rego/") || !strings.HasSuffix(f, ".rego") {
				t.Errorf("%s: Rego cell links %s", point, f)
			}
		}
		for _, f := range builtinFiles {
			if !strings.HasPrefix(f, "builtins/") {
				t.Errorf("%s: built-ins cell links %s", point, f)
			}
		}
		for _, f := range testFiles {
			if !strings.HasSuffix(f, "_test.go") && !strings.HasSuffix(f, "_test.rego") {
				t.Errorf("%s: tests cell links %s, not a test file", point, f)
			}
		}
		if len(regoFiles) == 0 || len(builtinFiles) == 0 || len(testFiles) == 0 {
			t.Errorf("%s: %d Rego, %d built-in and %d test links; want each", point, len(regoFiles), len(builtinFiles), len(testFiles))
			continue
		}
		regoSrc := read(regoFiles)
		for _, m := range names.FindAllStringSubmatch(links.ReplaceAllString(rego, ""), -1) {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + `\b`).MatchString(regoSrc) {
				t.Errorf("%s: rule %s is not defined in %v", point, m[1], regoFiles)
			}
		}
		goSrc := read(builtinFiles)
		ns := ""
		for _, m := range names.FindAllStringSubmatch(links.ReplaceAllString(builtins, ""), -1) {
			name := m[1]
			if strings.HasPrefix(name, "permopa.") {
				ns = name[:strings.LastIndex(name, ".")]
			} else if ns != "" {
				name = ns + "." + name
			}
			if !regexp.MustCompile(`Name:\s+"` + regexp.QuoteMeta(name) + `"`).MatchString(goSrc) {
				t.Errorf("%s: built-in %s is not registered in %v", point, name, builtinFiles)
			}
		}
	}
	for _, p := range []string{"faults", "1", "2", "3", "4", "5", "6"} {
		if !strings.Contains(points, p) {
			t.Errorf("docs/decision.md's table of points has no row for %s", p)
		}
	}
	if rows < 6 {
		t.Errorf("%d rows in docs/decision.md's table of points", rows)
	}
	if !strings.Contains(string(must(os.ReadFile("README.md"))), "(docs/decision.md)") {
		t.Error("README.md does not link docs/decision.md")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
