package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/adapter/opaplugin"
)

// setupRun makes OPA's `run` command permopa's server: the permopa plugin
// is registered, and enabled with its defaults (the embedded policy at
// data.permopa.policy.decision, the /v1/permission/* API, settings files
// watched) unless the configuration says something about plugins.permopa
// itself or uses discovery (which then carries the plugin's
// configuration). A server given no --addr listens on the per-user socket
// (hookproto.DefaultSocket), which the hooks ask by default.
func setupRun(root *cobra.Command) {
	opaplugin.Register()
	run, _, err := root.Find([]string{"run"})
	if err != nil || run == nil || run.Name() != "run" {
		return
	}
	// OPA's help says its own default (localhost:8181); a permopa server
	// listens on the per-user socket unless given --addr.
	if f := run.Flags().Lookup("addr"); f != nil {
		f.Usage = "set listening address of the server (e.g., [ip]:<port> for TCP, unix://<path> for UNIX domain socket) " +
			"(default with --server: this user's socket unix://" + hookproto.DefaultSocket() +
			", which the hooks ask; without --server: localhost:8181)"
		f.DefValue = "[]"
	}
	pre := run.PreRunE
	run.PreRunE = func(c *cobra.Command, args []string) error {
		// OPA's own pre-run reads OPA_RUN_* variables into the flags first,
		// so that a configuration given that way is seen below.
		if pre != nil {
			if err := pre(c, args); err != nil {
				return err
			}
		}
		// With system.authz on, it judges every route and the plugin
		// does not ask for its own tokens (docs/opa.md, "Authentication").
		if f := c.Flags().Lookup("authorization"); f != nil {
			opaplugin.SetOPAAuthorization(f.Value.String() == "basic")
		}
		// OPA reads request bodies of up to 256 MiB (512 MiB after gzip) by
		// default: a permission server takes far less from anyone who
		// reaches its port, unless the configuration says otherwise.
		if !configures(c, "server.decoding") {
			for _, kv := range []string{"server.decoding.max_length=" + maxRequestBytes, "server.decoding.gzip.max_length=" + maxRequestBytes} {
				if err := c.Flags().Set("set", kv); err != nil {
					return err
				}
			}
		}
		defaultSocket := false
		if server, _ := c.Flags().GetBool("server"); server && !c.Flags().Changed("addr") {
			// OPA's default, :8181 on every interface, is no place for a
			// permission server: the per-user socket instead, in a
			// directory only this user can enter (docs/hosts.md).
			sock := hookproto.DefaultSocket()
			if err := hookproto.PrepareSocket(sock); err != nil {
				return fmt.Errorf("permopa run --server: %w (or give --addr)", err)
			}
			if err := c.Flags().Set("addr", "unix://"+sock); err != nil {
				return err
			}
			defaultSocket = true
		}
		if configuresPlugin(c) {
			return nil
		}
		set := []string{
			"default_policy=" + opaplugin.PolicyAuto,
			// Rules added with `permopa rules add` and edits of the
			// settings files apply at the next check, without a restart.
			"settings.watch=true",
		}
		if defaultSocket {
			// Only this user reaches the per-user socket, and the hooks
			// ask it by default: it reads each call's project settings
			// as the local hook does, wherever this user works.
			set = append(set, "settings.projects.from_cwd=true", "settings.projects.roots[0]=/")
		}
		for _, kv := range set {
			if err := c.Flags().Set("set", "plugins."+opaplugin.Name+"."+kv); err != nil {
				return err
			}
		}
		return nil
	}
}

// maxRequestBytes is the default server.decoding.max_length (and gzip
// max_length) of `permopa run`: 16 MiB.
const maxRequestBytes = "16777216"

// configures reports whether the user's configuration (--set, --set-file,
// --config-file) sets the dotted key prefix (e.g. server.decoding).
func configures(c *cobra.Command, prefix string) bool {
	for _, flag := range []string{"set", "set-file"} {
		values, _ := c.Flags().GetStringArray(flag)
		for _, v := range values {
			for _, kv := range strings.Split(v, ",") {
				key, _, _ := strings.Cut(strings.TrimSpace(kv), "=")
				if key == prefix || strings.HasPrefix(key, prefix+".") {
					return true
				}
			}
		}
	}
	file, _ := c.Flags().GetString("config-file")
	if file == "" {
		return false
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return false
	}
	var cur any = doc
	for _, k := range strings.Split(prefix, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[k]; !ok {
			return false
		}
	}
	return true
}

// configuresPlugin reports whether the user's configuration (--set,
// --set-file, --config-file) mentions plugins.permopa or discovery.
func configuresPlugin(c *cobra.Command) bool {
	prefix := "plugins." + opaplugin.Name
	for _, flag := range []string{"set", "set-file"} {
		values, _ := c.Flags().GetStringArray(flag)
		for _, v := range values {
			for _, kv := range strings.Split(v, ",") {
				key, _, _ := strings.Cut(strings.TrimSpace(kv), "=")
				if key == prefix || strings.HasPrefix(key, prefix+".") || key == "discovery" || strings.HasPrefix(key, "discovery.") {
					return true
				}
			}
		}
	}
	file, _ := c.Flags().GetString("config-file")
	if file == "" {
		return false
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		// OPA reports the unreadable file itself.
		return false
	}
	var doc struct {
		Plugins   map[string]any `yaml:"plugins"`
		Discovery any            `yaml:"discovery"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return false
	}
	_, ok := doc.Plugins[opaplugin.Name]
	return ok || doc.Discovery != nil
}
