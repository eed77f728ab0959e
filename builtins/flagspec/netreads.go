package flagspec

// Network reads: programs whose read-only forms talk to a service
// configured outside the command (a docker daemon, a Kubernetes cluster,
// GitHub, a package registry), and the directories they write only for their
// own cache, logs and state. Their read-only verdict stands unless the
// network_reads setting says ask (see docs/settings.md, network_reads).
// --help and --version print without reaching the network.

func init() {
	// docker talks to its daemon (DOCKER_HOST, the current context).
	dockerSpec.network = NetRead
	dockerSubs["context"].local = true
	dockerSpec.cache = []string{"~/.docker/buildx/activity", "~/.docker/contexts/meta"}

	// kubectl talks to the cluster of the current kubeconfig context and
	// caches discovery documents; its config subcommands only read the file.
	kubectlSpec.network = NetRead
	kubectlSpec.cache = []string{"~/.kube/cache", "~/.kube/http-cache"}
	kubectlSpec.subs["config"].local = true
	kubectlSpec.subs["version"].allow = `--client@c -o= --output=`
	kubectlSpec.subs["version"].local = true
	kubectlSpec.subs["version"].check = func(st *state) {
		if !st.has('c') {
			st.v.Network = NetRead
		}
	}

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
