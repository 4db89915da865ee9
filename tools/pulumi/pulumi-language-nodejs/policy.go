package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// RunPlugin runs a Node.js policy pack for `pulumi preview --policy-pack` and `pulumi up
// --policy-pack`: the engine asks the language host of the pack's runtime (PulumiPolicy.yaml
// `runtime: nodejs`) to start it, with kind "analyzer" and the engine's address as the only
// argument. Like the released host and its `pulumi-analyzer-policy` script, it runs
// `node <@pulumi/pulumi>/cmd/run-policy-pack <engine address> .` in the pack's folder, the
// SDK found from that folder upwards, and streams the pack's stdout (where it prints its port)
// and stderr to the engine, then its exit code. Other kinds of plugins are not supported.
func (h *host) RunPlugin(req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	if req.GetKind() != "analyzer" {
		return status.Errorf(codes.Unimplemented, "this Node.js language host runs policy packs (kind analyzer) only, not plugins of kind %q", req.GetKind())
	}
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetPwd()
	}
	runPolicyPack, err := findSDKCommand(dir, "run-policy-pack")
	if err != nil {
		return fmt.Errorf("policy pack in %s: %w", dir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return errors.New("could not find node on PATH")
	}
	cmd := exec.CommandContext(server.Context(), node, append(append([]string{runPolicyPack}, req.GetArgs()...), ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), req.GetEnv()...)
	var mu sync.Mutex // gRPC streams take one Send at a time; stdout and stderr are copied by two goroutines
	send := func(r *pulumirpc.RunPluginResponse) error {
		mu.Lock()
		defer mu.Unlock()
		return server.Send(r)
	}
	cmd.Stdout = pluginWriter{func(b []byte) error {
		return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}})
	}}
	cmd.Stderr = pluginWriter{func(b []byte) error {
		return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}})
	}}
	code := int32(0)
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return fmt.Errorf("could not run the policy pack in %s: %w", dir, err)
		}
		code = int32(exitErr.ExitCode())
	}
	return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: code}})
}

// pluginWriter sends each write of a plugin's output to the engine (a copy: the caller reuses p).
type pluginWriter struct{ send func([]byte) error }

func (w pluginWriter) Write(p []byte) (int, error) {
	if err := w.send(append([]byte(nil), p...)); err != nil {
		return 0, err
	}
	return len(p), nil
}
