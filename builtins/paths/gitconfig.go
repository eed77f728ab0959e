package paths

import (
	"fmt"
	"strings"
)

// GitConfigEntry is one key of a git configuration file: section and name
// lower-cased, subsection as written (git compares it case-sensitively),
// Line the 1-based line of the key.
type GitConfigEntry struct {
	Section, Subsection, Name, Value string
	Line                             int
	// Bare is true for a key without "=" (a boolean true).
	Bare bool
}

// Key is section[.subsection].name as git prints it.
func (e GitConfigEntry) Key() string {
	if e.Subsection != "" {
		return e.Section + "." + e.Subsection + "." + e.Name
	}
	return e.Section + "." + e.Name
}

// ParseGitConfig reads git's configuration syntax (git-config(1),
// "CONFIGURATION FILE"): [section], [section "subsection"], the old
// [section.subsection], name = value with quotes, escapes, comments and
// backslash-newline continuations, and a bare name (true). Anything else is
// an error naming the line and column: a file git may read differently is
// never taken as harmless. Errors quote nothing of the file (a config
// linked to a key file must not print it in a decision's message).
func ParseGitConfig(data []byte) ([]GitConfigEntry, error) {
	s := string(data)
	s = strings.TrimPrefix(s, "\ufeff")
	p := &gitConfigParser{s: s, line: 1}
	return p.parse()
}

type gitConfigParser struct {
	s          string
	i, line    int
	lineStart  int
	section    string
	subsection string
}

func (p *gitConfigParser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d, column %d: %s", p.line, p.i-p.lineStart+1, fmt.Sprintf(format, args...))
}

func (p *gitConfigParser) newline() {
	p.line++
	p.lineStart = p.i
}

func (p *gitConfigParser) parse() ([]GitConfigEntry, error) {
	var out []GitConfigEntry
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\n':
			p.i++
			p.newline()
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			if err := p.header(); err != nil {
				return nil, err
			}
		case isAlpha(c):
			if p.section == "" {
				return nil, p.errorf("key outside any section")
			}
			e, err := p.entry()
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		default:
			return nil, p.errorf("unexpected character")
		}
	}
	return out, nil
}

func (p *gitConfigParser) skipLine() {
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		p.i++
	}
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isKeyChar(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' || c == '-' }

// header reads [section], [section "sub"] or [section.sub].
func (p *gitConfigParser) header() error {
	p.i++ // [
	start := p.i
	for p.i < len(p.s) && (isKeyChar(p.s[p.i]) || p.s[p.i] == '.') {
		p.i++
	}
	name := p.s[start:p.i]
	if name == "" {
		return p.errorf("empty section name")
	}
	p.subsection = ""
	if p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		if strings.Contains(name, ".") {
			return p.errorf("section name with a dot and a subsection")
		}
		for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
			p.i++
		}
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return p.errorf("expected a quoted subsection")
		}
		p.i++
		var sub strings.Builder
		for {
			if p.i >= len(p.s) || p.s[p.i] == '\n' {
				return p.errorf("unterminated subsection")
			}
			c := p.s[p.i]
			p.i++
			if c == '"' {
				break
			}
			if c == '\\' {
				if p.i >= len(p.s) || p.s[p.i] == '\n' {
					return p.errorf("unterminated subsection")
				}
				c = p.s[p.i]
				p.i++
			}
			sub.WriteByte(c)
		}
		p.subsection = sub.String()
		if p.i >= len(p.s) || p.s[p.i] != ']' {
			return p.errorf("expected ]")
		}
		p.i++
		p.section = strings.ToLower(name)
		return nil
	}
	if p.i >= len(p.s) || p.s[p.i] != ']' {
		return p.errorf("expected ]")
	}
	p.i++
	if sec, sub, ok := strings.Cut(name, "."); ok {
		// The old syntax: the subsection is lower-cased.
		p.section, p.subsection = strings.ToLower(sec), strings.ToLower(sub)
	} else {
		p.section = strings.ToLower(name)
	}
	if p.section == "" {
		return p.errorf("empty section name")
	}
	return nil
}

// entry reads name [= value] up to the end of its (logical) line.
func (p *gitConfigParser) entry() (GitConfigEntry, error) {
	e := GitConfigEntry{Section: p.section, Subsection: p.subsection, Line: p.line}
	start := p.i
	for p.i < len(p.s) && isKeyChar(p.s[p.i]) {
		p.i++
	}
	e.Name = strings.ToLower(p.s[start:p.i])
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
	if p.i >= len(p.s) || p.s[p.i] == '\n' || p.s[p.i] == '\r' || p.s[p.i] == '#' || p.s[p.i] == ';' {
		e.Bare = true
		p.skipLine()
		return e, nil
	}
	if p.s[p.i] != '=' {
		return e, p.errorf("expected = after a key name")
	}
	p.i++
	var v strings.Builder
	quoted := false
	pending := "" // blanks kept only if more value follows
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '\n' {
			break
		}
		p.i++
		switch {
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			e.Value = v.String()
			return e, p.endQuoted(quoted)
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			if v.Len() > 0 {
				pending += string(c)
			}
		case c == '"':
			v.WriteString(pending)
			pending = ""
			quoted = !quoted
		case c == '\\':
			if p.i >= len(p.s) {
				return e, p.errorf("backslash at the end of the file")
			}
			n := p.s[p.i]
			p.i++
			switch n {
			case '\n':
				p.newline()
				continue
			case '\r':
				if p.i < len(p.s) && p.s[p.i] == '\n' {
					p.i++
					p.newline()
					continue
				}
				return e, p.errorf("bad escape")
			case 'n':
				n = '\n'
			case 't':
				n = '\t'
			case 'b':
				n = '\b'
			case '\\', '"':
			default:
				return e, p.errorf("bad escape")
			}
			v.WriteString(pending)
			pending = ""
			v.WriteByte(n)
		default:
			v.WriteString(pending)
			pending = ""
			v.WriteByte(c)
		}
	}
	e.Value = v.String()
	return e, p.endQuoted(quoted)
}

func (p *gitConfigParser) endQuoted(quoted bool) error {
	if quoted {
		return p.errorf("unterminated quote")
	}
	return nil
}
