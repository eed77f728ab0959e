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
	"strings"
	"sync"
	"testing"
)

// A model API mock scripts one conversation: the first request that offers
// tools and carries the scenario's marker gets one tool call; the request
// that carries that call's result gets a final answer quoting it; anything
// else (titles, classifiers, token counts) gets a short text. It records
// every request and the tool result the host sent back, which is what
// the model saw of permopa's answer.
type modelMock struct {
	t      *testing.T
	marker string
	tool   string         // the host's tool name for the call
	args   map[string]any // its arguments
	callID string

	mu       sync.Mutex
	requests []mockRequest
	called   bool   // the tool call was sent
	result   string // the tool result the host sent back
	gotResul bool
	url      string
	srv      *http.Server
}

type mockRequest struct {
	Method, Path string
	Body         string
}

func newModelMock(t *testing.T, marker, tool string, args map[string]any) *modelMock {
	return &modelMock{t: t, marker: marker, tool: tool, args: args, callID: "call_permopa_e2e_1"}
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

// next decides the turn: a tool call, the final answer, or filler text.
// seenResult is the tool result found in the request (ok when found);
// offersTool and hasMarker describe the request.
func (m *modelMock) next(offersTool, hasMarker bool, result string, found bool) (call bool, text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case found:
		if !m.gotResul {
			m.result, m.gotResul = result, true
		}
		return false, "FINAL ANSWER. The tool said: " + result
	case offersTool && hasMarker && !m.called:
		m.called = true
		return true, ""
	default:
		return false, "ok"
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
		result, found := "", false
		for _, msg := range req.Messages {
			blocks, _ := msg.Content.([]any)
			for _, b := range blocks {
				bm, _ := b.(map[string]any)
				if bm["type"] == "tool_result" && bm["tool_use_id"] == m.callID {
					result, found = textOf(bm["content"]), true
				}
			}
		}
		hasMarker := strings.Contains(string(body), m.marker)
		call, text := m.next(offers, hasMarker, result, found)
		var block map[string]any
		stop := "end_turn"
		if call {
			block = map[string]any{"type": "tool_use", "id": m.callID, "name": m.tool, "input": m.args}
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
			args, _ := json.Marshal(m.args)
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "tool_use", "id": m.callID, "name": m.tool, "input": map[string]any{}}})
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
		result, found := "", false
		for _, it := range req.Input {
			if (it["type"] == "function_call_output" || it["type"] == "custom_tool_call_output") && it["call_id"] == m.callID {
				result, found = textOf(it["output"]), true
			}
		}
		call, text := m.next(offers, strings.Contains(string(body), m.marker), result, found)
		var item map[string]any
		if call {
			args, _ := json.Marshal(m.args)
			item = map[string]any{"type": "function_call", "id": "fc_1", "call_id": m.callID, "name": m.tool, "arguments": string(args), "status": "completed"}
			if raw, ok := m.args["__custom_input"].(string); ok {
				item = map[string]any{"type": "custom_tool_call", "id": "ctc_1", "call_id": m.callID, "name": m.tool, "input": raw, "status": "completed"}
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
		result, found := "", false
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if fr, ok := p["functionResponse"].(map[string]any); ok && (fr["id"] == m.callID || fr["name"] == m.tool) {
					result, found = textOf(fr["response"]), true
				}
			}
		}
		call, text := m.next(offers, strings.Contains(string(body), m.marker), result, found)
		var part map[string]any
		if call {
			part = map[string]any{"functionCall": map[string]any{"name": m.tool, "args": m.args, "id": m.callID}}
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
