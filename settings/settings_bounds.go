package settings

// settings_bounds.go: bounds on a settings file's nesting and size, checked before decoding.

import (
	"bytes"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// Bounds on one settings file, checked before it is decoded (SECURITY.md,
// "Bounded work on settings files"). A repository ships .permopa/ files
// and an agent may write settings.local.yaml: without them a 20 KB file
// of nested brackets took ~100 MB to read, and 4 MB of keys minutes
// (BENCHMARKS.md, "Hostile settings files"). A file over a bound is a file
// that cannot be read: its deny and ask rules may be missing, so every
// call is DENY (settings_unreadable) until it is fixed, as for any
// unreadable settings file.
const (
	// MaxSettingsDepth is how deeply maps and lists may nest (a settings
	// file needs five levels).
	MaxSettingsDepth = 32
	// MaxSettingsValues is how many keys, list items and scalars a file
	// may hold, YAML aliases counted as often as they are expanded (ten
	// thousand rules are about ten thousand values).
	MaxSettingsValues = 25_000
)

// checkSettingsShape refuses a document that nests deeper than
// MaxSettingsDepth or holds more than MaxSettingsValues values, before
// the format's decoder builds it.
func checkSettingsShape(format string, data []byte) error {
	switch format {
	case "json", "toml":
		return checkBrackets(format, data)
	case "yaml", "yml":
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			return nil // the decoder names the syntax error, with its line
		}
		c := shapeCounter{expanded: map[*yaml.Node]int{}}
		if _, err := c.walk(&n, 0); err != nil {
			return err
		}
	}
	return nil
}

// checkBrackets scans JSON or TOML text: the nesting of brackets and
// braces outside strings (TOML's dotted keys count as one level per dot)
// and the number of values (commas, newlines and openings bound it).
func checkBrackets(format string, data []byte) error {
	depth, lineDots, values := 0, 0, 0
	var quote byte
	for i := 0; i < len(data); i++ {
		ch := data[i]
		if quote != 0 {
			switch {
			case ch == '\\' && quote == '"':
				i++
			case ch == quote:
				quote = 0
			}
			continue
		}
		switch ch {
		case '"':
			quote = '"'
		case '\'':
			if format == "toml" {
				quote = '\''
			}
		case '#':
			if format == "toml" {
				if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
					i += j - 1
				} else {
					i = len(data)
				}
			}
		case '[', '{':
			depth++
			values++
		case ']', '}':
			depth--
		case ',':
			values++
		case '\n':
			lineDots = 0
			values++
		case '.':
			if format == "toml" {
				lineDots++
			}
		}
		if depth+lineDots > MaxSettingsDepth {
			return fmt.Errorf("nests deeper than %d levels; not read", MaxSettingsDepth)
		}
		if values > MaxSettingsValues {
			return fmt.Errorf("holds more than %d values; not read", MaxSettingsValues)
		}
	}
	return nil
}

// shapeCounter walks a YAML node tree, expanding aliases by count (each
// anchor's size is computed once).
type shapeCounter struct {
	total    int
	expanded map[*yaml.Node]int
}

// walk returns the number of values under n and adds them to the total.
func (c *shapeCounter) walk(n *yaml.Node, depth int) (int, error) {
	if depth > MaxSettingsDepth {
		return 0, fmt.Errorf("nests deeper than %d levels (line %d); not read", MaxSettingsDepth, n.Line)
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		size, ok := c.expanded[n.Alias]
		if !ok {
			// An anchor's own values were counted where it stands; an
			// alias adds them again.
			saved := c.total
			s, err := c.walk(n.Alias, depth)
			if err != nil {
				return 0, err
			}
			c.total = saved
			size = s
			c.expanded[n.Alias] = size
		}
		c.total += size
		if c.total > MaxSettingsValues {
			return 0, fmt.Errorf("holds more than %d values, aliases expanded (line %d); not read", MaxSettingsValues, n.Line)
		}
		return size, nil
	}
	size := 1
	c.total++
	for _, k := range n.Content {
		s, err := c.walk(k, depth+1)
		if err != nil {
			return 0, err
		}
		size += s
	}
	if c.total > MaxSettingsValues {
		return 0, fmt.Errorf("holds more than %d values (line %d); not read", MaxSettingsValues, n.Line)
	}
	return size, nil
}
