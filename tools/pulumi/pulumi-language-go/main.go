// Command pulumi-language-go is a small Go language host for the Pulumi engine, a stand-in for
// the one the Pulumi CLI ships.
//
// Why this exists: the upstream host lives in the Go module
// github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3, which the Go module proxy reachable
// from our machines does not serve, as for the Node.js and Python hosts beside it.
//
// What it does: it implements the LanguageRuntime gRPC service. Run builds the program with
// `go build` (the program's folder, or the entry point Pulumi.yaml's `main` names, into a
// temporary file), then runs that binary with the variables Pulumi's Go SDK reads its settings
// from (PULUMI_MONITOR, PULUMI_ENGINE, PULUMI_PROJECT, PULUMI_STACK, PULUMI_CONFIG, ...; see
// pulumi.RunWithContext), and reports the result. InstallDependencies runs `go mod download`.
// GetRequiredPackages and GetRequiredPlugins report the resource plugins the required modules
// declare in pulumi-plugin.json (see plugins.go). Not supported: the runtime options `binary`
// and `buildTarget`, policy packs, `pulumi new` templating and code generation.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumiservice.local/pulumi-tools/langhost"
)

// version is set at build time with -ldflags "-X main.version=v3.248.0".
var version = "v3.248.0"

type host struct {
	*langhost.Base
}

func main() {
	base := &langhost.Base{Version: version, Runtime: "go", Install: []string{"go", "mod", "download"}, Discover: discover}
	langhost.Serve("pulumi-language-go", base, &host{Base: base})
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	prog := langhost.ProgramOf(req)
	tmp, err := os.MkdirTemp("", "pulumi-go-program-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	binary := filepath.Join(tmp, "program")
	build := prog.Command(ctx, nil, "go", "build", "-o", binary, prog.Entry)
	if out, err := build.CombinedOutput(); err != nil {
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("go build in %s: %v\n%s", prog.Dir, err, out)}, nil
	}

	config, err := langhost.ConfigEnv(req)
	if err != nil {
		return nil, err
	}
	engine, _ := h.Engine()
	env := append(config,
		"PULUMI_MONITOR="+req.GetMonitorAddress(),
		"PULUMI_ENGINE="+engine,
		"PULUMI_PROJECT="+req.GetProject(),
		"PULUMI_STACK="+req.GetStack(),
		"PULUMI_ORGANIZATION="+req.GetOrganization(),
		"PULUMI_ROOT_DIRECTORY="+prog.Root,
		fmt.Sprintf("PULUMI_PARALLEL=%d", req.GetParallel()),
		fmt.Sprintf("PULUMI_DRY_RUN=%t", req.GetDryRun()),
	)
	return langhost.RunProgram(prog.Command(ctx, env, binary, req.GetArgs()...)), nil
}
