package opaplugin

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/logging"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/plugins/logs"
	"github.com/open-policy-agent/opa/v1/server"
	"github.com/open-policy-agent/opa/v1/storage"

	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/permission"
)

// logDecision sends one check to OPA's decision logger, when one is
// configured: the input with the mask pointers erased, the decision as
// the result, and the revisions of the bundles in the snapshot the
// decision was made in.
func (p *Plugin) logDecision(r *http.Request, txn storage.Transaction, cfg *Config, input any, d permission.Decision, m metrics.Metrics, started time.Time, id string) {
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
	masked, erased := decisionlog.MaskSegments(input, cfg.mask())
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
