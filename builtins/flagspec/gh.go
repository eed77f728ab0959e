package flagspec

// gh (GitHub CLI): viewing and listing only. -w/--web opens a browser (it
// runs a program and can act with the user's session): not read-only.
// "gh auth status --show-token" prints the token: not read-only. "gh api"
// can send any request (-X, -f imply writes): not read-only. Everything
// that creates, edits, merges, closes or runs is known but not read-only.

const ghOut = ` --json= -q= --jq= -t= --template= -R= --repo=`

var ghWeb = []denial{{`-w --web`, "opens a browser"}}

var ghIssueList = &spec{
	allow: ghOut + ` -a= --assignee= -A= --author= --app= -l= --label= -L= --limit= --mention=
		-m= --milestone= -S= --search= -s= --state=`,
	deny: ghWeb, ops: opsNone,
}
var ghIssueView = &spec{allow: ghOut + ` -c --comments`, deny: ghWeb, ops: opsText}
var ghPrList = &spec{
	allow: ghOut + ` -a= --assignee= -A= --author= --app= -B= --base= -d --draft -H= --head=
		-l= --label= -L= --limit= -S= --search= -s= --state=`,
	deny: ghWeb, ops: opsNone,
}
var ghPrView = &spec{allow: ghOut + ` -c --comments`, deny: ghWeb, ops: opsText}
var ghPrStatus = &spec{allow: ghOut + ` -c --conflict-status`, ops: opsNone}
var ghPrDiff = &spec{allow: ` -R= --repo= --color= --name-only --patch --exclude=`, deny: ghWeb, ops: opsText}
var ghPrChecks = &spec{
	allow: ghOut + ` --fail-fast -i= --interval= --required --watch`,
	deny:  ghWeb, ops: opsText,
}
var ghRunList = &spec{
	allow: ghOut + ` -b= --branch= -c= --commit= --created= -e= --event= -u= --user= -w= --workflow=
		-s= --status= -L= --limit= -a --all`,
	ops: opsNone,
}
var ghRunView = &spec{
	allow: ghOut + ` --exit-status -j= --job= --log --log-failed -v --verbose -a= --attempt=`,
	deny:  []denial{{`--web`, "opens a browser"}}, ops: opsText,
}

var ghNever = func(what string) *spec { return &spec{never: what} }

var ghSpec = &spec{
	noAbbrev: true,
	// The user's pager (GH_PAGER, PAGER, its pager setting); none turns it off.
	terminal: terminalPages,
	subs: map[string]*spec{
		"status": {allow: ` -e= --exclude= -o= --org=`, ops: opsNone},
		"repo": {group: true, subs: map[string]*spec{
			"view": {allow: ghOut + ` -b= --branch=`, deny: ghWeb, ops: opsText},
			"list": {allow: ghOut + ` --archived --fork -l= --language= -L= --limit= --no-archived
				--source --topic= --visibility=`, ops: opsText},
			"clone":  ghNever("gh repo clone writes a repository"),
			"create": ghNever("gh repo create creates a repository"),
			"delete": ghNever("gh repo delete deletes a repository"),
			"edit":   ghNever("gh repo edit changes a repository"),
			"fork":   ghNever("gh repo fork creates a repository"),
		}},
		"issue": {group: true, subs: map[string]*spec{
			"list":    ghIssueList,
			"view":    ghIssueView,
			"status":  {allow: ghOut, ops: opsNone},
			"create":  ghNever("gh issue create creates an issue"),
			"close":   ghNever("gh issue close closes an issue"),
			"edit":    ghNever("gh issue edit changes an issue"),
			"comment": ghNever("gh issue comment posts a comment"),
			"delete":  ghNever("gh issue delete deletes an issue"),
		}},
		"pr": {group: true, subs: map[string]*spec{
			"list":     ghPrList,
			"view":     ghPrView,
			"status":   ghPrStatus,
			"diff":     ghPrDiff,
			"checks":   ghPrChecks,
			"create":   ghNever("gh pr create opens a pull request"),
			"merge":    ghNever("gh pr merge merges a pull request"),
			"close":    ghNever("gh pr close closes a pull request"),
			"checkout": ghNever("gh pr checkout changes the work tree"),
			"comment":  ghNever("gh pr comment posts a comment"),
			"review":   ghNever("gh pr review posts a review"),
			"edit":     ghNever("gh pr edit changes a pull request"),
		}},
		"run": {group: true, subs: map[string]*spec{
			"list":   ghRunList,
			"view":   ghRunView,
			"rerun":  ghNever("gh run rerun starts a workflow"),
			"cancel": ghNever("gh run cancel cancels a workflow"),
			"watch":  {allow: ` -i= --interval= --exit-status --compact -R= --repo=`, ops: opsText},
		}},
		"workflow": {group: true, subs: map[string]*spec{
			"list": {allow: ghOut + ` -a --all -L= --limit=`, ops: opsNone},
			"view": {allow: ghOut + ` -r= --ref= -y --yaml`, deny: ghWeb, ops: opsText},
			"run":  ghNever("gh workflow run starts a workflow"),
		}},
		"release": {group: true, subs: map[string]*spec{
			"list":   {allow: ghOut + ` --exclude-drafts --exclude-pre-releases -L= --limit= -O= --order=`, ops: opsNone},
			"view":   {allow: ghOut, deny: ghWeb, ops: opsText},
			"create": ghNever("gh release create publishes a release"),
		}},
		"label": {group: true, subs: map[string]*spec{
			"list": {allow: ghOut + ` -L= --limit= -S= --search= --sort= --order=`, deny: ghWeb, ops: opsNone},
		}},
		"search": {group: true, subs: map[string]*spec{
			"repos":   {allow: ghOut + ` -L= --limit= --order= --sort= --owner= --language= --visibility= --archived? --topic= --stars= --include-forks=`, deny: ghWeb, ops: opsText},
			"issues":  {allow: ghOut + ` -L= --limit= --order= --sort= --owner= --state= --label= --author= --assignee= --app= --language=`, deny: ghWeb, ops: opsText},
			"prs":     {allow: ghOut + ` -L= --limit= --order= --sort= --owner= --state= --label= --author= --assignee= --app= --base= -B= --head= -H= --draft? --merged? --language=`, deny: ghWeb, ops: opsText},
			"commits": {allow: ghOut + ` -L= --limit= --order= --sort= --owner= --author= --committer= --hash=`, deny: ghWeb, ops: opsText},
		}},
		"auth": {group: true, subs: map[string]*spec{
			"status": {
				// -t is --show-token here, not --template.
				allow: ` -a --active -h= --hostname=`,
				deny:  []denial{{`-t --show-token`, "prints the authentication token"}},
				ops:   opsNone,
			},
			"login":  ghNever("gh auth login stores credentials"),
			"logout": ghNever("gh auth logout removes credentials"),
			"token":  ghNever("gh auth token prints a credential"),
		}},
		"version":   {ops: opsNone},
		"api":       ghNever("gh api can send any request, including writes"),
		"browse":    ghNever("gh browse opens a browser"),
		"extension": ghNever("gh extension installs or runs extensions"),
		"secret":    ghNever("gh secret manages secrets"),
		"gist": {group: true, subs: map[string]*spec{
			"list": {allow: ghOut + ` -L= --limit= --public --secret --filter= --include-content`, ops: opsNone},
			"view": {allow: ghOut + ` -f= --filename= --files -r --raw`, deny: ghWeb, ops: opsText},
		}},
	},
}

// kubectl: reading cluster state. Global options may appear anywhere
// (cobra persistent flags). Denied globals: --kubeconfig (a kubeconfig can
// name an exec credential plugin, so a file the agent wrote would run a
// program), -s/--server and --tls-server-name (would send the current
// credentials to another server), credentials on the command line, and
// --cache-dir/--profile-output (write files). Plugins (kubectl NAME runs
// kubectl-NAME) and every writing verb are not read-only.
var kubectlSpec = &spec{
	noAbbrev: true,
	inherit:  true,
	allow: `-n= --namespace= --context= --cluster= --user= -v= --v= --request-timeout=
		--match-server-version --as= --as-group= --as-uid= --log-flush-frequency= --warnings-as-errors
		--disable-compression`,
	deny: []denial{
		{`--token= --username= --password= --client-certificate= --client-key= --certificate-authority=`,
			"passes credentials on the command line"},
		{`--kubeconfig=r`, "reads a kubeconfig, which can run an exec credential plugin"},
		{`-s= --server= --tls-server-name= --insecure-skip-tls-verify`, "sends the credentials to another server"},
		{`--cache-dir=w --profile= --profile-output=w`, "writes files"},
	},
	subs: map[string]*spec{
		"get": {allow: `-A --all-namespaces -o= --output= -l= --selector= --field-selector= -w --watch
			--watch-only --show-labels --no-headers -L= --label-columns= --sort-by= --chunk-size=
			--ignore-not-found --show-kind -f=r@f --filename=r@f -k=r --kustomize=r -R@r --recursive@r --raw=
			--subresource= --template= --server-print --output-watch-events --allow-missing-template-keys
			--show-managed-fields`, ops: opsText, check: checkKubectlFiles},
		"describe": {allow: `-A --all-namespaces -l= --selector= -f=r@f --filename=r@f -k=r -R@r --recursive@r
			--show-events? --chunk-size=`, ops: opsText, check: checkKubectlFiles},
		"logs": {allow: `-f --follow -p --previous -c= --container= --all-containers --tail= --since=
			--since-time= --timestamps -l= --selector= --prefix --max-log-requests= --pod-running-timeout=
			--ignore-errors --limit-bytes= --all-pods`, ops: opsText},
		"explain":       {allow: `--recursive --api-version= -o= --output=`, ops: opsText},
		"version":       {allow: `--client -o= --output=`, ops: opsNone},
		"api-resources": {allow: `--api-group= --cached --namespaced? --no-headers -o= --output= --sort-by= --verbs= --categories=`, ops: opsNone},
		"api-versions":  {ops: opsNone},
		"cluster-info":  {ops: opsNone},
		"top":           {group: true, subs: map[string]*spec{"pod": {allow: `-A --all-namespaces -l= --selector= --containers --no-headers --sort-by= --sum --use-protocol-buffers`, ops: opsText}, "node": {allow: `-l= --selector= --no-headers --sort-by= --use-protocol-buffers --show-capacity`, ops: opsText}}},
		"config": {group: true, subs: map[string]*spec{
			"view":            {allow: `--minify --raw --flatten -o= --output= --template= --merge?`, ops: opsNone},
			"get-contexts":    {allow: `--no-headers -o= --output=`, ops: opsText},
			"current-context": {ops: opsNone},
			"get-clusters":    {ops: opsNone},
		}},
		"auth":   {group: true, subs: map[string]*spec{"can-i": {allow: `-A --all-namespaces --list --no-headers -q --quiet --subresource=`, ops: opsText}}},
		"apply":  ghNever("kubectl apply changes cluster state"),
		"delete": ghNever("kubectl delete removes resources"),
		"exec":   ghNever("kubectl exec runs a command in a pod"),
		"edit":   ghNever("kubectl edit changes resources"),
	},
}

func init() {
	register(ghSpec, "gh")
	register(kubectlSpec, "kubectl")
}

// checkKubectlFiles: -f DIR reads the .json, .yaml and .yml files in DIR
// (every level below with -R), hidden ones too, and a file it cannot
// decode is printed in the error (kubectl get -R -f ~ printed
// ~/.docker/config.json's auth): each -f value is a tree.
func checkKubectlFiles(st *state) {
	depth := 1
	if st.has('r') {
		depth = 0
	}
	for _, mv := range st.vals {
		if mv.mark == 'f' {
			st.tree(mv.val, Tree{Hidden: true, MaxDepth: depth, Include: []string{"*.json", "*.yaml", "*.yml"}, IncludeFirst: true})
		}
	}
}
