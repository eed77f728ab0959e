package opaplugin

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/logging"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/plugins/logs"
	"github.com/open-policy-agent/opa/v1/server"
	"github.com/open-policy-agent/opa/v1/storage"

	"github.com/permopa/permopa/engine"
)

// logDecision sends one check to OPA's decision logger, when one is
// configured: the input with the mask pointers erased, the decision as
// the result, and the revisions of the bundles in the snapshot the
// decision was made in.
func (p *Plugin) logDecision(r *http.Request, txn storage.Transaction, cfg *Config, input any, d engine.Decision, m metrics.Metrics, started time.Time, id string) {
	lp := logs.Lookup(p.m)
	if lp == nil {
		return
	}
	// The request's context may have ended (a client gone, a deadline
	// passed): the event is still written.
	ctx := context.WithoutCancel(r.Context())
	if txn == nil {
		// A decision made without evaluating (the deadline passed): the
		// bundle revisions of the store as it is now.
		t, err := p.m.Store.NewTransaction(ctx)
		if err == nil {
			defer p.m.Store.Abort(ctx, t)
			txn = t
		}
	}
	masked, erased := maskInput(input, cfg.mask())
	var result any
	if b, err := json.Marshal(d); err == nil {
		_ = json.Unmarshal(b, &result)
	}
	bundles := map[string]server.BundleInfo{}
	if txn != nil {
		names, _ := bundle.ReadBundleNamesFromStore(ctx, p.m.Store, txn)
		for _, name := range names {
			if rev, err := bundle.ReadBundleRevisionFromStore(ctx, p.m.Store, txn, name); err == nil {
				bundles[name] = server.BundleInfo{Revision: rev}
			}
		}
	}
	info := &server.Info{
		Txn:                txn,
		DecisionID:         id,
		Path:               cfg.Path,
		Input:              &masked,
		Results:            &result,
		Bundles:            bundles,
		RemoteAddr:         r.RemoteAddr,
		HTTPRequestContext: logging.HTTPRequestContext{Header: r.Header.Clone()},
		Timestamp:          started.UTC(),
		Metrics:            m,
	}
	if len(erased) > 0 {
		info.Custom = map[string]any{"permopa_erased": erased}
	}
	if err := lp.Log(ctx, info); err != nil {
		p.m.Logger().Error("permopa: decision log: %v", err)
	}
}

// maskInput returns a copy of input without the values at the pointers
// (segments under input) and the pointers it erased. Only the maps and
// arrays on the way to an erased value are copied; input is not changed.
func maskInput(input any, ptrs [][]string) (any, []string) {
	var erased []string
	out := input
	for _, segs := range ptrs {
		var ok bool
		out, ok = eraseAt(out, segs)
		if ok {
			erased = append(erased, pointer(segs))
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

func pointer(segs []string) string {
	s := "/input"
	for _, seg := range segs {
		s += "/" + strings.ReplaceAll(strings.ReplaceAll(seg, "~", "~0"), "/", "~1")
	}
	return s
}

// newDecisionID is a random (version 4) UUID, as OPA's decision IDs are.
func newDecisionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
