package opaplugin

import (
	"container/list"
	"encoding/json"
	"sync"
	"time"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/permission"
)

// pendingAsk is a check answered ASK, remembered so that a confirm can
// name it (decision_id) and accept only the rules it suggested.
type pendingAsk struct {
	id string
	// call is the checked call as adapter.Call JSON: what a confirm's
	// tool_call must equal, and what it is decided again with.
	call      []byte
	suggested []permission.Rule
	expires   time.Time
	elem      *list.Element
}

// maxPendingBytes caps the memory of the remembered calls, whatever their
// number (a check may carry up to max_body_bytes).
const maxPendingBytes = 64 << 20

// pendingAsks remembers recent ASKs for a bounded time and size: at most
// max entries and maxPendingBytes of calls, each for window; the oldest
// are forgotten first. A confirm of a forgotten ASK is refused
// (unknown_decision): check the call again.
type pendingAsks struct {
	mu     sync.Mutex
	byID   map[string]*pendingAsk
	order  *list.List // oldest first
	bytes  int
	max    int
	window time.Duration
}

func newPendingAsks(max int, window time.Duration) *pendingAsks {
	return &pendingAsks{byID: map[string]*pendingAsk{}, order: list.New(), max: max, window: window}
}

// normalizedCall is a call as a confirm would name it: the fields of
// adapter.Call (unknown fields, such as a hook's transcript_path, dropped).
func normalizedCall(input any) ([]byte, bool) {
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, false
	}
	var c adapter.Call
	if err := json.Unmarshal(raw, &c); err != nil || c.ToolName == "" {
		return nil, false
	}
	out, err := json.Marshal(c)
	return out, err == nil
}

// add remembers an ASK for input under id.
func (ps *pendingAsks) add(id string, input any, suggested []permission.Rule, now time.Time) {
	call, ok := normalizedCall(input)
	if !ok || len(call) > maxPendingBytes/4 {
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.expireLocked(now)
	pa := &pendingAsk{id: id, call: call, suggested: suggested, expires: now.Add(ps.window)}
	pa.elem = ps.order.PushBack(pa)
	ps.byID[id] = pa
	ps.bytes += len(call)
	for ps.order.Len() > ps.max || ps.bytes > maxPendingBytes {
		ps.removeLocked(ps.order.Front().Value.(*pendingAsk))
	}
}

// get returns the ASK remembered under id, nil when there is none (never
// checked, expired, forgotten, or already confirmed).
func (ps *pendingAsks) get(id string, now time.Time) *pendingAsk {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.expireLocked(now)
	return ps.byID[id]
}

// remove forgets an ASK once it is confirmed or declined: one answer per
// question.
func (ps *pendingAsks) remove(pa *pendingAsk) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.byID[pa.id] == pa {
		ps.removeLocked(pa)
	}
}

func (ps *pendingAsks) removeLocked(pa *pendingAsk) {
	ps.order.Remove(pa.elem)
	delete(ps.byID, pa.id)
	ps.bytes -= len(pa.call)
}

func (ps *pendingAsks) expireLocked(now time.Time) {
	for e := ps.order.Front(); e != nil; e = ps.order.Front() {
		pa := e.Value.(*pendingAsk)
		if now.Before(pa.expires) {
			return
		}
		ps.removeLocked(pa)
	}
}

// suggestedRule says whether r is one of the rules the ASK suggested
// (same tool and content; its behavior may be another: "never ask again"
// may keep a suggestion as a deny or ask rule).
func (pa *pendingAsk) suggestedRule(r permission.Rule) bool {
	for _, s := range pa.suggested {
		if s.ToolName == r.ToolName && content(s) == content(r) {
			return true
		}
	}
	return false
}

func content(r permission.Rule) string {
	if r.RuleContent == nil {
		return ""
	}
	return *r.RuleContent
}
