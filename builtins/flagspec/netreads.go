package flagspec

// Network reads: programs whose read-only forms talk to a service
// configured outside the command (a docker daemon, a Kubernetes cluster,
// GitHub, a package registry), and the directories they write only for their
// own cache, logs and state. Their read-only verdict stands unless the
// network_reads setting says ask (docs/usage.md, "Rules").
// --help and --version print without reaching the network.

func init() {
	// docker talks to its daemon (DOCKER_HOST, the current context).
	dockerSpec.network = NetRead
	dockerSubs["context"].local = true
	dockerSpec.cache = []string{"~/.docker/buildx/activity", "~/.docker/contexts/meta"}

	// kubectl talks to the cluster of the current kubeconfig context and
	// caches discovery documents. Even config, version --client and --help
	// contact the server with a version-dispatching kubectl (Google Cloud
	// SDK's kubectl picks the binary matching the server's version), as
	// observed under strace: every kubectl command is a network read.
	kubectlSpec.network = NetRead
	kubectlSpec.netAlways = true
	kubectlSpec.cache = []string{"~/.kube/cache", "~/.kube/http-cache"}

	// gh's own aliases of its listing commands, and more listing commands.
	for _, g := range []string{"issue", "pr", "repo", "release", "workflow", "label", "run", "gist"} {
		if l := ghSpec.subs[g].subs["list"]; l != nil {
			ghSpec.subs[g].subs["ls"] = l
		}
	}
	ghSpec.subs["pr"].subs["new"] = ghNever("gh pr new opens a pull request")
	ghSpec.subs["issue"].subs["new"] = ghNever("gh issue new creates an issue")
	ghSpec.subs["search"].subs["code"] = &spec{allow: ghOut + ` -L= --limit= --owner= --language= --extension= --filename= --match= --size=`,
		deny: ghWeb, ops: opsText}

	// docker system events streams the daemon's events.
	dockerSubs["system"].subs["events"] = &spec{allow: `-f= --filter= --format= --since= --until=`, ops: opsNone}
	dockerSubs["events"] = dockerSubs["system"].subs["events"]

	// kubectl top pod|pods|po and node|nodes|no; cluster-info dump to stdout.
	top := kubectlSpec.subs["top"].subs
	top["pods"], top["po"], top["nodes"], top["no"] = top["pod"], top["pod"], top["node"], top["node"]
	kubectlSpec.subs["cluster-info"] = &spec{ops: opsNone, subs: map[string]*spec{
		"dump": {allow: `-A --all-namespaces --namespaces= -o= --output=`, deny: []denial{{`--output-directory=w`, "writes files"}}, ops: opsNone},
	}}

	// gh talks to GitHub (or GH_HOST) and keeps its update-check state.
	ghSpec.network = NetRead
	ghSpec.cache = []string{"~/.local/state/gh", "~/.cache/gh"}
	ghSpec.subs["version"].local = true

	// npm checks the registry for a newer npm on every command (its update
	// notifier, weekly) and logs every command to ~/.npm/_logs.
	npmSpec.network = NetRead
	npmSpec.cache = []string{"~/.npm/_logs", "~/.npm/_cacache", "~/.npm/_update-notifier-last-checked"}
	for _, s := range []*spec{pnpmSpec, yarnSpec} {
		s.network = NetRead
		s.cache = []string{"~/.cache/yarn", "~/.yarn/berry/cache", "~/.cache/pnpm", "~/.local/share/pnpm"}
	}

	// pip list checks PyPI for a newer pip (unless
	// --disable-pip-version-check), and list --outdated and index versions
	// query the index; show, freeze, check and inspect only read.
	pipSpec.cache = []string{"~/.cache/pip"}
	pipSpec.subs["list"].network = NetRead
	pipSpec.subs["index"].network = NetRead
	for _, sub := range []string{"show", "freeze", "check", "inspect", "help"} {
		pipSpec.subs[sub].local = true
	}

	// go list and go doc load packages, downloading missing modules from
	// GOPROXY into the module cache and building into the build cache.
	goCache := []string{"~/.cache/go-build", "~/go/pkg/mod"}
	for _, sub := range []string{"list", "doc"} {
		goSpec.subs[sub].network = NetRead
		goSpec.subs[sub].cache = goCache
	}

	// brew reads its formula API (formulae.brew.sh) into its cache.
	for _, sub := range []string{"info", "search", "outdated", "deps", "uses", "desc"} {
		brewSpec.subs[sub].network = NetRead
		brewSpec.subs[sub].cache = []string{"~/Library/Caches/Homebrew", "~/.cache/Homebrew"}
	}
}
