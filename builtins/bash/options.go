package bash

import "strings"

// optSpec describes a wrapper's options, enough to find where its command starts.
type optSpec struct {
	shortVal  string // letters taking a value (glued or next word)
	shortFlag string // letters taking none
	shortOpt  string // letters taking an optional glued value (xargs -i[R])
	longVal   []string
	longFlag  []string
	longOpt   []string // --opt[=value]
	numeric   bool     // -N is an option (nice -10)
}

// parsedOpt is one option found.
type parsedOpt struct {
	name  string // "u" or "user"
	value string
	has   bool // a value was given
}

// scan parses argv[1:] as options; it returns the options and the index of
// the first operand. ok is false on an option it does not know: the
// caller then cannot tell where the command starts.
func (o optSpec) scan(argv []word) (opts []parsedOpt, idx int, ok bool) {
	i := 1
	for i < len(argv) {
		a := argv[i].s
		if argv[i].dynamic {
			return opts, i, false
		}
		if a == "--" {
			return opts, i + 1, true
		}
		if len(a) < 2 || a[0] != '-' {
			return opts, i, true
		}
		if o.numeric && isNumberLit(a[1:]) {
			opts = append(opts, parsedOpt{name: "n", value: a[1:], has: true})
			i++
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			full, kind := o.long(name)
			switch kind {
			case 'v':
				if !hasVal {
					if i+1 >= len(argv) {
						return opts, i, false
					}
					i++
					val = argv[i].s
				}
				opts = append(opts, parsedOpt{name: full, value: val, has: true})
			case 'f':
				if hasVal {
					return opts, i, false
				}
				opts = append(opts, parsedOpt{name: full})
			case 'o':
				opts = append(opts, parsedOpt{name: full, value: val, has: hasVal})
			default:
				return opts, i, false
			}
			i++
			continue
		}
		// a cluster of short options
		j := 1
		for j < len(a) {
			c := a[j]
			switch {
			case strings.IndexByte(o.shortVal, c) >= 0:
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(argv) {
						return opts, i, false
					}
					i++
					val = argv[i].s
				}
				opts = append(opts, parsedOpt{name: string(c), value: val, has: true})
				j = len(a)
			case strings.IndexByte(o.shortOpt, c) >= 0:
				opts = append(opts, parsedOpt{name: string(c), value: a[j+1:], has: j+1 < len(a)})
				j = len(a)
			case strings.IndexByte(o.shortFlag, c) >= 0:
				opts = append(opts, parsedOpt{name: string(c)})
				j++
			default:
				return opts, i, false
			}
		}
		i++
	}
	return opts, i, true
}

// long resolves a long option name, GNU abbreviations included; kind is
// 'v' (takes a value), 'f' (flag), 'o' (optional value) or 0 (unknown or ambiguous).
func (o optSpec) long(name string) (string, byte) {
	type cand struct {
		n string
		k byte
	}
	var found []cand
	for _, set := range []struct {
		names []string
		k     byte
	}{{o.longVal, 'v'}, {o.longFlag, 'f'}, {o.longOpt, 'o'}} {
		for _, n := range set.names {
			if n == name {
				return n, set.k
			}
			if name != "" && strings.HasPrefix(n, name) {
				found = append(found, cand{n, set.k})
			}
		}
	}
	if len(found) == 1 {
		return found[0].n, found[0].k
	}
	return "", 0
}

func hasOpt(opts []parsedOpt, names ...string) (parsedOpt, bool) {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				return o, true
			}
		}
	}
	return parsedOpt{}, false
}
