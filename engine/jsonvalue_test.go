package engine

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// jsonValueCases are inputs where a JSON decoder can go wrong: repeated
// keys (in small objects and past the size where the parser indexes keys),
// escapes, invalid UTF-8, number spellings, nesting, whitespace, and
// documents that are not one valid value.
var jsonValueCases = []string{
	`{"tool_name":"Bash","tool_input":{"command":"ls"}}`,
	`{"a":1,"a":2}`,
	`{"a":{"x":1},"b":2,"a":"last"}`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":"again","k17":17,"k16":"again","k0":[0]}`,
	`{"tool_name":"Bash","tool_name":"Write"}`,
	`{"\u0074ool_name":"Bash","tool_name":"Read"}`,
	`{"s":"\u00e9\ud83d\ude00\n\t\"\\\/"}`,
	`{"s":"\ud800"}`,
	`{"s":"\udc00\ud800x"}`,
	"{\"s\":\"\xff\xfe\"}",
	"{\"s\":\"ok \xc3\xa9 bad \xc3\"}",
	"{\"\xff\":1,\"\xfe\":2}",
	"{\"\xff\":1,\"\xef\xbf\xbd\":2}",
	`{"n":[0,-0,1.0,1.50,1e3,1E+3,-2.5e-7,12345678901234567890123,100,-1,0.0]}`,
	`{"n":1e999999999}`,
	`{"n":-1e-999999999}`,
	`{"b":[true,false,null],"e":{},"a":[],"x":[[]],"y":[{}]}`,
	" \t\r\n{ \"a\" : [ 1 , { \"b\" : null } ] }\n ",
	`{"a":1} `,
	`{"a":1} {"b":2}`,
	`{"a":1}x`,
	`{"a":1`,
	`{"a":}`,
	`{a:1}`,
	`{"a":01}`,
	`{"a":"x` + "\t" + `"}`,
	"\xef\xbb\xbf{\"a\":1}",
	`[1,2]`,
	`"str"`,
	`17`,
	`null`,
	``,
	`{"t":tru}`,
	strings.Repeat(`{"a":`, 500) + `1` + strings.Repeat(`}`, 500),
	strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001),
}

// parseInput gives the value ast.ValueFromReader gives (what DecideJSON
// used before), to the text of every number, or the same error.
func TestParseInputSameAsValueFromReader(t *testing.T) {
	for _, c := range jsonValueCases {
		sameAsValueFromReader(t, []byte(c))
	}
	f, err := os.Open("testdata/matrix-cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		sameAsValueFromReader(t, sc.Bytes())
		n++
	}
	if err := sc.Err(); err != nil || n == 0 {
		t.Fatalf("corpus: %d lines, %v", n, err)
	}
}

func sameAsValueFromReader(t *testing.T, doc []byte) {
	t.Helper()
	want, werr := ast.ValueFromReader(bytes.NewReader(doc))
	got, gerr := parseInput(doc)
	switch {
	case (werr == nil) != (gerr == nil):
		t.Errorf("%.80q: error %v, want %v", doc, gerr, werr)
	case werr != nil:
		if gerr.Error() != werr.Error() {
			t.Errorf("%.80q: error %q, want %q", doc, gerr, werr)
		}
	case ast.Compare(got, want) != 0 || got.String() != want.String():
		t.Errorf("%.80q: value %v, want %v", doc, got, want)
	}
}

func FuzzParseInput(f *testing.F) {
	for _, c := range jsonValueCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		sameAsValueFromReader(t, doc)
	})
}

// BenchmarkParseInput compares the input decoding of DecideJSON with
// ast.ValueFromReader (BENCHMARKS.md, "Per line of permopa decide").
func BenchmarkParseInput(b *testing.B) {
	doc := []byte(`{"tool_name":"Bash","tool_input":{"command":"ls -la src | grep foo && git diff --stat"},"permission_mode":"default","cwd":"/w","tool_use_id":"toolu_01"}`)
	b.Run("parseInput", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parseInput(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ValueFromReader", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ast.ValueFromReader(bytes.NewReader(doc)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
