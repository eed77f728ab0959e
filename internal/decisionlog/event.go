// Package decisionlog writes and reads permopa's decision logs: OPA
// decision log events (the JSON objects OPA's decision logger ships to a
// collector, gzip'd batches included, or prints on its console), the same
// events written one per line by `permopa decide --log` and `permopa hook
// --log`, `permopa decide` input and decision pairs, and plain decide
// inputs. `permopa replay` and `permopa insights` read them (docs/replay.md).
//
// Reading a log never runs anything from it: a record is data, and a line
// that is not a record is an error naming the line; the lines after it are
// still read.
package decisionlog

import (
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
)

// DefaultPath is the decision's path in events, as OPA logs it
// (data.permopa.policy.decision).
const DefaultPath = "permopa/policy/decision"

// DefaultMask are the JSON pointers erased from the input of every event
// permopa writes: the fields that carry file contents and edits. It is the
// OPA plugin's default (docs/opa.md, "Masking"), so that a log written by
// `permopa hook --log` keeps what a server's log keeps.
var DefaultMask = []string{
	"/input/tool_input/content",
	"/input/tool_input/new_string",
	"/input/tool_input/old_string",
	"/input/tool_input/edits",
}

// ErasedKey is the key under an event's custom object listing the
// pointers permopa's mask erased (OPA's own mask lists them in "erased").
const ErasedKey = "permopa_erased"

// ParsePointer reads a JSON pointer under /input ("/input/tool_input/content")
// into the segments below input (RFC 6901 escapes ~0 and ~1 decoded).
func ParsePointer(p string) ([]string, error) {
	rest, ok := strings.CutPrefix(p, "/input/")
	if !ok || rest == "" {
		return nil, fmt.Errorf("%q: want a JSON pointer under /input, such as /input/tool_input/content", p)
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs, nil
}

// Pointer is the JSON pointer of segments under input.
func Pointer(segs []string) string {
	var b strings.Builder
	b.WriteString("/input")
	for _, seg := range segs {
		b.WriteString("/")
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(seg, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// MaskInput returns a copy of input (decoded JSON) without the values at
// the pointers, and the pointers it erased, as the OPA plugin's mask does.
// Only the maps and arrays on the way to an erased value are copied; input
// is not changed.
func MaskInput(input any, pointers []string) (any, []string) {
	segs := make([][]string, 0, len(pointers))
	for _, p := range pointers {
		if ps, err := ParsePointer(p); err == nil {
			segs = append(segs, ps)
		}
	}
	return MaskSegments(input, segs)
}

// MaskSegments is MaskInput with the pointers already parsed (ParsePointer),
// for a caller that masks every decision with the same pointers.
func MaskSegments(input any, pointers [][]string) (any, []string) {
	var erased []string
	out := input
	for _, segs := range pointers {
		var ok bool
		out, ok = eraseAt(out, segs)
		if ok {
			erased = append(erased, Pointer(segs))
		}
	}
	return out, erased
}

func eraseAt(v any, segs []string) (any, bool) {
	if len(segs) == 0 {
		return v, false
	}
	switch x := v.(type) {
	case map[string]any:
		child, ok := x[segs[0]]
		if !ok {
			return v, false
		}
		cp := make(map[string]any, len(x))
		for k, val := range x {
			cp[k] = val
		}
		if len(segs) == 1 {
			delete(cp, segs[0])
			return cp, true
		}
		sub, erased := eraseAt(child, segs[1:])
		if !erased {
			return v, false
		}
		cp[segs[0]] = sub
		return cp, true
	case []any:
		i, err := strconv.Atoi(segs[0])
		if err != nil || i < 0 || i >= len(x) {
			return v, false
		}
		cp := append([]any(nil), x...)
		if len(segs) == 1 {
			cp = append(cp[:i], cp[i+1:]...)
			return cp, true
		}
		sub, erased := eraseAt(x[i], segs[1:])
		if !erased {
			return v, false
		}
		cp[i] = sub
		return cp, true
	}
	return v, false
}

// NewDecisionID is a random (version 4) UUID, as OPA's decision IDs are.
func NewDecisionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
