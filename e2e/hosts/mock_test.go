//go:build hostse2e

package hosts_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// A model API mock scripts one conversation: the first request that offers
// tools and carries the scenario's marker gets the first tool call; the
// request that carries a call's result gets the next call of the script,
// or, after the last, a final answer quoting the first result; anything
// else (titles, classifiers, token counts) gets a short text. It records
// every request and the tool results the host sent back, which is what
// the model saw of permopa's answer.
type modelMock struct {
	t      *testing.T
	marker string
	tool   string           // the host's tool name for the calls
	calls  []map[string]any // the arguments of each call, in order
	args   map[string]any   // the first call's (calls[0])

	mu       sync.Mutex
	requests []mockRequest
	called   bool     // the first tool call was sent
	sent     int      // the calls sent so far
	results  []string // the tool results the host sent back, in order
	result   string   // the first of them
	gotResul bool
	url      string
	srv      *http.Server
}

type mockRequest struct {
	Method, Path string
	Body         string
}

func newModelMock(t *testing.T, marker, tool string, args map[string]any, more ...map[string]any) *modelMock {
	return &modelMock{t: t, marker: marker, tool: tool, args: args, calls: append([]map[string]any{args}, more...)}
}

// callID names call i (0-based) of the script.
func callID(i int) string { return fmt.Sprintf("call_permopa_e2e_%d", i+1) }

// scriptedCall reports whether id names a call of the script, and which.
func (m *modelMock) scriptedCall(id any) (int, bool) {
	for i := range m.calls {
		if id == callID(i) {
			return i, true
		}
	}
	return 0, false
}

// call is the tool name and arguments of call i: "__tool" in the
// script's arguments names another tool than the first call's, and a
// value "$SESSION" is the session number a previous result named
// ("session ID 1234", Codex's exec_command).
func (m *modelMock) call(i int) (string, map[string]any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name, out := m.tool, map[string]any{}
	for k, v := range m.calls[i] {
		switch {
		case k == "__tool":
			name, _ = v.(string)
		case v == "$SESSION":
			for _, r := range m.results {
				if sm := sessionRe.FindStringSubmatch(r); sm != nil {
					n, _ := strconv.Atoi(sm[1])
					v = n
				}
			}
			out[k] = v
		default:
			out[k] = v
		}
	}
	return name, out
}

var sessionRe = regexp.MustCompile(`(?i)session ID:? (\d+)`)

// allResults are the tool results the host sent back, one per call, in order.
func (m *modelMock) allResults() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.results...)
}

// start serves h on a loopback port.
func (m *modelMock) start(h http.Handler) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		m.t.Fatal(err)
	}
	m.url = "http://" + ln.Addr().String()
	m.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		m.mu.Lock()
		m.requests = append(m.requests, mockRequest{r.Method, r.URL.String(), string(body)})
		m.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})}
	go m.srv.Serve(ln)
	m.t.Cleanup(func() { m.srv.Close() })
}

// toolResult is the tool result the host sent back ("" and false when none).
func (m *modelMock) toolResult() (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.result, m.gotResul
}

func (m *modelMock) toolCalled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.called
}

func (m *modelMock) log() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	for _, r := range m.requests {
		body := r.Body
		if len(body) > 600 {
			body = body[:300] + " … " + body[len(body)-300:]
		}
		fmt.Fprintf(&b, "%s %s %s\n", r.Method, r.Path, body)
	}
	return b.String()
}

// next decides the turn: call i of the script (i >= 0), or the text of
// the final answer or filler (i < 0). results are the tool results found
// in the request, by call; offersTool and hasMarker describe it.
func (m *modelMock) next(offersTool, hasMarker bool, results map[int]string) (i int, text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	done := 0
	for done < len(m.calls) {
		if _, ok := results[done]; !ok {
			break
		}
		done++
	}
	if done > len(m.results) {
		m.results = m.results[:0]
		for j := 0; j < done; j++ {
			m.results = append(m.results, results[j])
		}
		m.result, m.gotResul = m.results[0], true
	}
	switch {
	case done > 0 && done < len(m.calls) && m.sent == done:
		m.sent++
		return done, ""
	case done > 0:
		return -1, "FINAL ANSWER. The tool said: " + results[0]
	case offersTool && hasMarker && !m.called:
		m.called, m.sent = true, 1
		return 0, ""
	default:
		return -1, "ok"
	}
}

func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// textOf flattens any JSON value's strings (tool results arrive as strings,
// arrays of text blocks or objects).
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, textOf(e))
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		for _, k := range []string{"text", "output", "content", "error", "llmContent", "result"} {
			if s, ok := x[k]; ok {
				return textOf(s)
			}
		}
		b, _ := json.Marshal(x)
		return string(b)
	}
	return ""
}

// ---- Anthropic Messages API (Claude Code, ANTHROPIC_BASE_URL) ----

func (m *modelMock) anthropic() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/v1/messages") || r.Method != http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{}`))
			return
		}
		if strings.HasPrefix(r.URL.Path, "/v1/messages/count_tokens") {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"input_tokens":10}`))
			return
		}
		var req struct {
			Model    string `json:"model"`
			Stream   bool   `json:"stream"`
			Tools    []struct{ Name string }
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			}
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		offers := false
		for _, t := range req.Tools {
			if t.Name == m.tool {
				offers = true
			}
		}
		results := map[int]string{}
		for _, msg := range req.Messages {
			blocks, _ := msg.Content.([]any)
			for _, b := range blocks {
				bm, _ := b.(map[string]any)
				if i, ok := m.scriptedCall(bm["tool_use_id"]); ok && bm["type"] == "tool_result" {
					results[i] = textOf(bm["content"])
				}
			}
		}
		hasMarker := strings.Contains(string(body), m.marker)
		ci, text := m.next(offers, hasMarker, results)
		call := ci >= 0
		var block map[string]any
		stop := "end_turn"
		if call {
			name, input := m.call(ci)
			block = map[string]any{"type": "tool_use", "id": callID(ci), "name": name, "input": input}
			stop = "tool_use"
		} else {
			block = map[string]any{"type": "text", "text": text}
		}
		usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"id": "msg_mock", "type": "message", "role": "assistant", "model": req.Model,
				"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
			})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_mock", "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
		if call {
			name, input := m.call(ci)
			args, _ := json.Marshal(input)
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "tool_use", "id": callID(ci), "name": name, "input": map[string]any{}}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
		} else {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": text}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		sse(w, "message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
		sse(w, "message_stop", map[string]any{"type": "message_stop"})
	})
}

// ---- OpenAI Responses API (Codex, a model provider's base_url) ----

func (m *modelMock) openaiResponses() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"data":[],"models":[]}`))
			return
		}
		var req struct {
			Model string           `json:"model"`
			Tools []map[string]any `json:"tools"`
			Input []map[string]any `json:"input"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		offers := false
		for _, t := range req.Tools {
			if t["name"] == m.tool {
				offers = true
			}
		}
		results := map[int]string{}
		for _, it := range req.Input {
			if i, ok := m.scriptedCall(it["call_id"]); ok && (it["type"] == "function_call_output" || it["type"] == "custom_tool_call_output") {
				results[i] = textOf(it["output"])
			}
		}
		ci, text := m.next(offers, strings.Contains(string(body), m.marker), results)
		var item map[string]any
		if ci >= 0 {
			name, input := m.call(ci)
			args, _ := json.Marshal(input)
			n := fmt.Sprint(ci + 1)
			item = map[string]any{"type": "function_call", "id": "fc_" + n, "call_id": callID(ci), "name": name, "arguments": string(args), "status": "completed"}
			if raw, ok := input["__custom_input"].(string); ok {
				item = map[string]any{"type": "custom_tool_call", "id": "ctc_" + n, "call_id": callID(ci), "name": name, "input": raw, "status": "completed"}
			}
		} else {
			item = map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		resp := map[string]any{"id": "resp_mock", "object": "response", "model": req.Model, "status": "in_progress", "output": []any{}}
		sse(w, "response.created", map[string]any{"type": "response.created", "response": resp})
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
		done := map[string]any{"id": "resp_mock", "object": "response", "model": req.Model, "status": "completed", "output": []any{item},
			"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}
		sse(w, "response.completed", map[string]any{"type": "response.completed", "response": done})
	})
}

// ---- Gemini API (Gemini CLI, GOOGLE_GEMINI_BASE_URL) ----

func (m *modelMock) gemini() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(path, ":countTokens") {
			w.Write([]byte(`{"totalTokens":10}`))
			return
		}
		if !strings.Contains(path, ":generateContent") && !strings.Contains(path, ":streamGenerateContent") {
			w.Write([]byte(`{}`))
			return
		}
		var req struct {
			Contents []struct {
				Role  string           `json:"role"`
				Parts []map[string]any `json:"parts"`
			} `json:"contents"`
			Tools []struct {
				FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
			} `json:"tools"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		offers := false
		for _, t := range req.Tools {
			for _, f := range t.FunctionDeclarations {
				if f.Name == m.tool {
					offers = true
				}
			}
		}
		// A response names its call by id, or only by the tool's name:
		// then the n-th response answers the n-th call.
		results := map[int]string{}
		n := 0
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				fr, ok := p["functionResponse"].(map[string]any)
				if !ok {
					continue
				}
				if i, ok := m.scriptedCall(fr["id"]); ok {
					results[i] = textOf(fr["response"])
					n = i + 1
				} else if fr["name"] == m.tool && n < len(m.calls) {
					results[n] = textOf(fr["response"])
					n++
				}
			}
		}
		ci, text := m.next(offers, strings.Contains(string(body), m.marker), results)
		var part map[string]any
		if ci >= 0 {
			name, input := m.call(ci)
			part = map[string]any{"functionCall": map[string]any{"name": name, "args": input, "id": callID(ci)}}
		} else {
			part = map[string]any{"text": text}
		}
		chunk := map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
			"modelVersion":  "gemini-mock",
		}
		if strings.Contains(path, ":streamGenerateContent") {
			w.Header().Set("Content-Type", "text/event-stream")
			sse(w, "", chunk)
			return
		}
		json.NewEncoder(w).Encode(chunk)
	})
}

// dump writes every request body to dir (for finding out what a host sends).
func (m *modelMock) dump(dir string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, r := range m.requests {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("req-%02d.json", i)), []byte(r.Body), 0o644)
	}
}
