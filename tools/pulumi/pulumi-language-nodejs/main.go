// Command pulumi-language-nodejs is a small Node.js language host for the Pulumi engine.
//
// Why this exists: the upstream language host lives in the Go module
// github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3, which the Go module
// proxy reachable from our machines refuses to serve (403 "This module version is not
// available"). The Pulumi CLI itself (module github.com/pulumi/pulumi/pkg/v3) is served, so
// scripts/ensure-pulumi.js builds it and builds this host next to it, against the same
// github.com/pulumi/pulumi/sdk/v3 release.
//
// What it does: it implements the LanguageRuntime gRPC service the engine talks to. Run
// starts `node <@pulumi/pulumi>/cmd/run` (the program launcher shipped in the npm package)
// with the flags and environment that launcher documents (see its usage text), waits for it
// and reports the result. GetRequiredPackages and GetRequiredPlugins report the resource plugins
// the installed packages declare in their package.json (`pulumi` field; see plugins.go). Policy
// packs, code generation and `pulumi new` templating are not supported.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumiservice.local/pulumi-tools/langhost"
)

// version is set at build time with -ldflags "-X main.version=v3.248.0".
var version = "v3.248.0"

type host struct {
	*langhost.Base
}

func main() {
	base := &langhost.Base{Version: version, Runtime: "node", Install: []string{"npm", "install"}, Discover: discover}
	langhost.Serve("pulumi-language-nodejs", base, &host{Base: base})
}

// findRunPath looks for node_modules/@pulumi/pulumi/cmd/run from dir upwards, as Node's
// module resolution would for a program in dir.
func findRunPath(dir string) (string, error) {
	if p := os.Getenv("PULUMI_LANGUAGE_NODEJS_RUN_PATH"); p != "" {
		return p, nil
	}
	return findSDKCommand(dir, "run")
}

// findSDKCommand looks for node_modules/@pulumi/pulumi/cmd/<name> (a launcher of the npm
// package: run, run-policy-pack) from dir upwards, as Node's module resolution would.
func findSDKCommand(dir, name string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(d, "node_modules", "@pulumi", "pulumi", "cmd", name)
		if st, err := os.Stat(candidate); err == nil && st.IsDir() {
			return candidate, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("could not find @pulumi/pulumi in node_modules above %s; did you run npm install?", dir)
		}
		d = parent
	}
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	prog := langhost.ProgramOf(req)
	runPath, err := findRunPath(prog.Dir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	node, err := exec.LookPath("node")
	if err != nil {
		return &pulumirpc.RunResponse{Error: "could not find node on PATH"}, nil
	}

	var args []string
	if s := langhost.StringOption(info, "nodeargs"); s != "" {
		args = append(args, strings.Fields(s)...)
	}
	args = append(args, runPath)
	flag := func(k, v string) {
		if v != "" {
			args = append(args, "--"+k+"="+v)
		}
	}
	engine, tracing := h.Engine()
	flag("monitor", req.GetMonitorAddress())
	flag("engine", engine)
	flag("organization", req.GetOrganization())
	flag("project", req.GetProject())
	flag("stack", req.GetStack())
	flag("pwd", prog.Dir)
	flag("root-directory", prog.Root)
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if req.GetParallel() > 0 {
		flag("parallel", fmt.Sprint(req.GetParallel()))
	}
	flag("tracing", tracing)
	args = append(args, prog.Entry)
	args = append(args, req.GetArgs()...)

	config, err := langhost.ConfigEnv(req)
	if err != nil {
		return nil, err
	}
	env := config
	typescript := true
	if v, ok := langhost.Option(info, "typescript"); ok {
		if b, ok := v.(bool); ok {
			typescript = b
		}
	}
	env = append(env, fmt.Sprintf("PULUMI_NODEJS_TYPESCRIPT=%t", typescript))
	if s := langhost.StringOption(info, "tsconfig"); s != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+s)
	}

	return langhost.RunProgram(prog.Command(ctx, env, node, args...)), nil
}
