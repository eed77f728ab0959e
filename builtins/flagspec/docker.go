package flagspec

// docker: listing and inspecting containers, images, volumes and networks.
// Global options that select another daemon (-H/--host, --context/-c) or
// client configuration (--config, --tls*) are not read-only: a remote
// daemon is reached over ssh or TCP, and --config points at credentials.
// The tsv lists "docker -H ssh://… ps" as either; permopa chooses not.
// docker run/exec/cp/build/rm/... are known but not read-only.
var dockerSpec = &spec{
	noAbbrev: true,
	allow:    `-D --debug -l= --log-level= -v`,
	deny: []denial{
		{`-H= --host= -c= --context=`, "talks to another docker daemon"},
		{`--config= --tls --tlsverify --tlscacert= --tlscert= --tlskey=`, "changes the client configuration"},
	},
	subs: dockerSubs,
}

const dockerFormat = ` -f= --format=`

var dockerPsSpec = &spec{
	allow: `-a --all -f= --filter= --format= -n= --last= -l --latest --no-trunc -q --quiet -s --size`,
	ops:   opsNone,
}
var dockerImagesSpec = &spec{
	allow: `-a --all --digests -f= --filter= --format= --no-trunc -q --quiet --tree`,
	ops:   opsText,
}
var dockerLogsSpec = &spec{
	allow: `--details -f --follow --since= -n= --tail= -t --timestamps --until=`,
	ops:   opsText,
}
var dockerInspectSpec = &spec{allow: dockerFormat + ` -s --size --type=`, ops: opsText}
var dockerInfoSpec = &spec{allow: dockerFormat, ops: opsNone}
var dockerHistorySpec = &spec{allow: dockerFormat + ` -H --human --no-trunc -q --quiet --platform=`, ops: opsText}
var dockerStatsSpec = &spec{allow: `-a --all --format= --no-stream --no-trunc`, ops: opsText}
var dockerTopSpec = &spec{ops: opsText, posix: true}
var dockerPortSpec = &spec{ops: opsText}
var dockerDiffSpec = &spec{ops: opsText}
var dockerLsSpec = &spec{allow: `-f= --filter= --format= -q --quiet --no-trunc -a --all --digests --tree -n= --last= -l --latest -s --size -d= --driver=`, ops: opsNone}

var dockerSubs = map[string]*spec{
	"ps":      dockerPsSpec,
	"images":  dockerImagesSpec,
	"logs":    dockerLogsSpec,
	"inspect": dockerInspectSpec,
	"info":    dockerInfoSpec,
	"version": dockerInfoSpec,
	"history": dockerHistorySpec,
	"stats":   dockerStatsSpec,
	"top":     dockerTopSpec,
	"port":    dockerPortSpec,
	"diff":    dockerDiffSpec,
	"container": {group: true, noSub: "docker container needs a subcommand", subs: map[string]*spec{
		"ls": dockerPsSpec, "ps": dockerPsSpec, "list": dockerPsSpec, "logs": dockerLogsSpec,
		"inspect": dockerInspectSpec, "stats": dockerStatsSpec, "top": dockerTopSpec,
		"port": dockerPortSpec, "diff": dockerDiffSpec,
	}},
	"image": {group: true, noSub: "docker image needs a subcommand", subs: map[string]*spec{
		"ls": dockerImagesSpec, "list": dockerImagesSpec, "inspect": dockerInspectSpec,
		"history": dockerHistorySpec,
	}},
	"volume": {group: true, noSub: "docker volume needs a subcommand", subs: map[string]*spec{
		"ls": dockerLsSpec, "list": dockerLsSpec, "inspect": dockerInspectSpec,
	}},
	"network": {group: true, noSub: "docker network needs a subcommand", subs: map[string]*spec{
		"ls": dockerLsSpec, "list": dockerLsSpec, "inspect": dockerInspectSpec,
	}},
	"system": {group: true, noSub: "docker system needs a subcommand", subs: map[string]*spec{
		"df": {allow: dockerFormat + ` -v --verbose`, ops: opsNone}, "info": dockerInfoSpec,
	}},
	"context": {group: true, noSub: "docker context needs a subcommand", subs: map[string]*spec{
		"ls": dockerLsSpec, "list": dockerLsSpec, "show": {ops: opsNone}, "inspect": dockerInspectSpec,
	}},
	"compose": {
		group: true,
		allow: `-f=r --file=r -p= --project-name= --project-directory=r --profile= --env-file=r --ansi= --progress=`,
		noSub: "docker compose needs a subcommand",
		subs: map[string]*spec{
			"ps":      {allow: `-a --all -q --quiet --services --status= --filter= --format= --no-trunc --orphans`, ops: opsText},
			"ls":      {allow: `-a --all -q --quiet --filter= --format=`, ops: opsNone},
			"logs":    {allow: `-f --follow --no-color --no-log-prefix --since= -n= --tail= -t --timestamps --until= --index=`, ops: opsText},
			"images":  {allow: `-q --quiet --format=`, ops: opsText},
			"top":     {ops: opsText},
			"config":  {never: "docker compose config prints the resolved configuration, including values read from .env"},
			"version": {allow: `-f= --format= --short`, ops: opsNone},
		},
	},
	"run":   {never: "docker run starts a container"},
	"exec":  {never: "docker exec runs a command in a container"},
	"cp":    {never: "docker cp copies files"},
	"build": {never: "docker build runs build steps"},
	"rm":    {never: "docker rm removes containers"},
	"rmi":   {never: "docker rmi removes images"},
	"pull":  {never: "docker pull downloads images"},
	"push":  {never: "docker push uploads images"},
	"stop":  {never: "docker stop stops containers"},
	"start": {never: "docker start starts containers"},
	"kill":  {never: "docker kill stops containers"},
	"login": {never: "docker login stores credentials"},
}

func init() {
	register(dockerSpec, "docker")
}
