package decisionlog

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// got is what a test reads from a log: each record as "kind pos tool_use_id
// behavior" and each error as "error pos: text".
func readAll(t *testing.T, log []byte, opts ReaderOptions) ([]string, []*Record, *Reader) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(log), "log", opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var recs []*Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			out = append(out, "error "+le.Error())
			continue
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		var in struct {
			ToolUseID string `json:"tool_use_id"`
		}
		if err := json.Unmarshal(rec.Input, &in); err != nil {
			t.Fatalf("%s: input %s: %v", rec.Pos, rec.Input, err)
		}
		var res struct{ Behavior string }
		_ = json.Unmarshal(rec.Result, &res)
		out = append(out, strings.TrimSpace(strings.Join([]string{string(rec.Kind), rec.Pos.String(), in.ToolUseID, res.Behavior}, " ")))
		recs = append(recs, rec)
	}
	return out, recs, r
}

func event(id, behavior string) string {
	return `{"decision_id":"d-` + id + `","path":"permopa/policy/decision","input":{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"` + id + `"},"result":{"behavior":"` + behavior + `","step":"read_only","matched_rule":null,"suggested_rules":[]},"timestamp":"2026-11-30T10:00:00.5Z"}`
}

// TestReaderShapes reads every shape of log replay and insights take, and
// keeps going after values that are not records, naming their lines.
func TestReaderShapes(t *testing.T) {
	cases := []struct {
		name string
		log  string
		want []string
	}{
		{"ndjson events", event("a", "ALLOW") + "\n" + event("b", "ASK") + "\n",
			[]string{"event log:1 a ALLOW", "event log:2 b ASK"}},
		{"a batch on one line, as OPA uploads it", "[" + event("a", "ALLOW") + "," + event("b", "DENY") + "]",
			[]string{"event log:1[1] a ALLOW", "event log:1[2] b DENY"}},
		{"batches concatenated without a newline", "[" + event("a", "ALLOW") + "][" + event("b", "DENY") + "]\n[" + event("c", "ASK") + "]",
			[]string{"event log:1[1] a ALLOW", "event log:1[1] b DENY", "event log:2[1] c ASK"}},
		{"a pretty-printed event", "\n\n{\n  \"input\": {\"tool_name\": \"Read\", \"tool_input\": {\"file_path\": \"x\"}, \"tool_use_id\": \"p\"},\n  \"result\": {\"behavior\": \"ALLOW\"}\n}\n",
			[]string{"event log:3 p ALLOW"}},
		{"console log lines", `{"level":"info","msg":"Initializing server.","time":"2026-11-30T10:00:00Z"}` + "\n" +
			`{"decision_id":"x","input":{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"c"},"level":"info","msg":"Decision Log","path":"permopa/policy/decision","result":{"behavior":"ALLOW"},"time":"2026-11-30T10:00:01Z","timestamp":"2026-11-30T10:00:01Z","type":"openpolicyagent.org/decision_logs"}` + "\n",
			[]string{"console log:2 c ALLOW"}},
		{"decide inputs and decisions", `{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"i1"}` + "\n" +
			`{"behavior":"ALLOW","step":"read_only","tool_use_id":"i1"}` + "\n" +
			`{"tool_name":"Bash","tool_input":{"command":"rm x"},"tool_use_id":"i2"}` + "\n" +
			`{"tool_name":"Bash","tool_input":{"command":"rm y"},"tool_use_id":"i3"}` + "\n",
			[]string{"pair log:1 i1 ALLOW", "input log:3 i2", "input log:4 i3"}},
		{"an input and decision pair object", `{"input":{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"o"},"decision":{"behavior":"DENY"}}`,
			[]string{"event log:1 o DENY"}},
		{"events of other paths are skipped", `{"path":"system/authz/allow","input":{"x":1},"result":true}` + "\n" + event("a", "ALLOW"),
			[]string{"event log:2 a ALLOW"}},
		{"bad lines are errors naming the line; the others are read",
			event("a", "ALLOW") + "\n" +
				`{"input": {"tool_name": "Bash", "tool_input": ` + "\n" + // a truncated line
				`not json at all </script>` + "\n" +
				`[1, 2]` + "\n" +
				`"a string"` + "\n" +
				`{"input": "rm -rf /", "result": {"behavior": "ALLOW"}}` + "\n" +
				`{"input": {"tool_name": "Bash"}, "result": {"behavior": "MAYBE"}}` + "\n" +
				`{"behavior": "ALLOW"}` + "\n" +
				`{"hello": "world"}` + "\n" +
				`{"input": {"tool_name": "Write"}, "custom": {"permopa_erased": "/input"}}` + "\n" +
				`{"input": {"tool_name": "Write"}, "custom": {"permopa_erased": [` + strings.Repeat(`"/input/tool_input/x",`, MaxErased) + `"/input/tool_input/y"]}}` + "\n" +
				event("b", "DENY") + "\n",
			[]string{
				"event log:1 a ALLOW",
				"error log:2: not JSON: invalid character 'o' in literal null (expecting 'u')",
				"error log:3: not JSON: invalid character 'o' in literal null (expecting 'u')",
				"error log:4[1]: not a JSON object (want a decision log event, a decide input or a decision)",
				"error log:4[2]: not a JSON object (want a decision log event, a decide input or a decision)",
				"error log:5: not a JSON object (want a decision log event, a decide input or a decision)",
				"error log:6: input: not a JSON object",
				`error log:7: result: behavior: "MAYBE" is not ALLOW, DENY or ASK`,
				"error log:8: a decision with no decide input on the line before it",
				"error log:9: not a decision log event, decide input or decision: no input, tool_name or behavior field",
				"error log:10: custom.permopa_erased: not an array of JSON pointers",
				"error log:11: custom.permopa_erased: more than 1024 fields erased",
				"event log:12 b DENY",
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, _ := readAll(t, []byte(c.log), ReaderOptions{})
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// TestReaderGzipBatches reads OPA's upload bodies (gzip'd JSON arrays) as a
// collector stores them: one body, or several appended to one file.
func TestReaderGzipBatches(t *testing.T) {
	var log bytes.Buffer
	for _, batch := range [][]string{{event("a", "ALLOW"), event("b", "ASK")}, {event("c", "DENY")}} {
		zw := gzip.NewWriter(&log)
		if _, err := zw.Write([]byte("[" + strings.Join(batch, ",") + "]")); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	got, recs, _ := readAll(t, log.Bytes(), ReaderOptions{})
	want := []string{"event log:1[1] a ALLOW", "event log:1[2] b ASK", "event log:1[1] c DENY"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if want := time.Date(2026, 11, 30, 10, 0, 0, 5e8, time.UTC); !recs[0].Time.Equal(want) || recs[0].DecisionID != "d-a" {
		t.Errorf("record 1: time %v, decision id %q", recs[0].Time, recs[0].DecisionID)
	}
}

// TestReaderErasedFields gathers the pointers whose values a log does not
// have, from permopa's mask and OPA's.
func TestReaderErasedFields(t *testing.T) {
	log := `{"input":{"tool_name":"Write","tool_input":{"file_path":"/x"}},"result":{"behavior":"ASK"},` +
		`"erased":["/input/tool_input/sql","/result/message"],"masked":["/input/cwd"],` +
		`"custom":{"permopa_erased":["/input/tool_input/content"]},"bundles":{"rules":{"revision":"r2"}}}`
	_, recs, _ := readAll(t, []byte(log), ReaderOptions{})
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	if want := []string{"/input/tool_input/sql", "/input/cwd", "/input/tool_input/content"}; !reflect.DeepEqual(recs[0].Erased, want) {
		t.Errorf("erased %q, want %q", recs[0].Erased, want)
	}
	if recs[0].Bundles["rules"] != "r2" {
		t.Errorf("bundles %v", recs[0].Bundles)
	}
}

// TestReaderTooLarge: a value longer than the cap is an error, and the
// next line is read.
func TestReaderTooLarge(t *testing.T) {
	defer func(v int64) { maxValue = v }(maxValue)
	maxValue = 4 << 10
	huge := `{"tool_name":"Bash","tool_input":{"command":"` + strings.Repeat("x", 64<<10) + `"}}`
	got, _, _ := readAll(t, []byte(event("a", "ALLOW")+"\n"+huge+"\n"+event("b", "DENY")+"\n"), ReaderOptions{})
	want := []string{"event log:1 a ALLOW", "error log:2: a value longer than 4096 bytes; skipped to the next line", "event log:3 b DENY"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestWriter appends events that the reader reads back, masked, with
// mode 0600.
func TestWriter(t *testing.T) {
	file := filepath.Join(t.TempDir(), "calls.log")
	w, err := Open(file, WriterOptions{Source: "decide", Bundles: map[string]string{"org.tar.gz": "r7"}})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "/x/.env", "content": "SECRET=1"}, "tool_use_id": "w1"}
	if err := w.Log(in, map[string]any{"behavior": "ASK", "step": "tool_check"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if in["tool_input"].(map[string]any)["content"] != "SECRET=1" {
		t.Error("masking changed the caller's input")
	}
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	raw, _ := os.ReadFile(file)
	if bytes.Contains(raw, []byte("SECRET")) {
		t.Errorf("the content was logged: %s", raw)
	}
	_, recs, _ := readAll(t, raw, ReaderOptions{})
	if len(recs) != 1 || !reflect.DeepEqual(recs[0].Erased, []string{"/input/tool_input/content"}) || recs[0].Bundles["org.tar.gz"] != "r7" || recs[0].Labels["source"] != "decide" {
		t.Errorf("read back %+v", recs)
	}
}
