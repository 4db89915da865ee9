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
// and reports the result. Dependency discovery returns no packages: programs of this project
// use only dynamic providers, which the engine loads on demand from PATH. Policy packs,
// code generation and `pulumi new` templating are not supported.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// version is set at build time with -ldflags "-X main.version=v3.248.0".
var version = "v3.248.0"

// exitCodeBail is the exit code of @pulumi/pulumi's launcher when the program failed and the
// error was already reported to the engine (nodeJSProcessExitedAfterLoggingUserActionableMessage).
const exitCodeBail = 32

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	mu            sync.Mutex
	engineAddress string
	tracing       string
}

func main() {
	h := &host{}
	// The engine starts us as: pulumi-language-nodejs [-flags...] <engine address>. Flags we do not
	// use (-root, -v, -logtostderr, ...) are accepted and ignored so newer engines keep working.
	for _, a := range os.Args[1:] {
		switch {
		case strings.HasPrefix(a, "-tracing="), strings.HasPrefix(a, "--tracing="):
			h.tracing = a[strings.Index(a, "=")+1:]
		case strings.HasPrefix(a, "-"):
		default:
			h.engineAddress = a
		}
	}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, h)
			return nil
		},
		Options: rpcutil.OpenTracingServerInterceptorOptions(nil),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: could not start the RPC server: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: RPC server stopped: %v\n", err)
		os.Exit(1)
	}
}

func (h *host) Handshake(_ context.Context, req *pulumirpc.LanguageHandshakeRequest) (*pulumirpc.LanguageHandshakeResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if req.GetEngineAddress() != "" {
		h.engineAddress = req.GetEngineAddress()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (h *host) GetRequiredPlugins(context.Context, *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *host) GetRequiredPackages(context.Context, *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *host) GetProgramDependencies(context.Context, *pulumirpc.GetProgramDependenciesRequest) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return &pulumirpc.GetProgramDependenciesResponse{}, nil
}

func (h *host) RuntimeOptionsPrompts(context.Context, *pulumirpc.RuntimeOptionsRequest) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

func (h *host) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, status.Error(codes.FailedPrecondition, "node is not on PATH")
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return nil, status.Errorf(codes.Internal, "node --version: %v", err)
	}
	return &pulumirpc.AboutResponse{Executable: node, Version: strings.TrimSpace(string(out))}, nil
}

// InstallDependencies runs `npm install` in the program directory and streams its output.
func (h *host) InstallDependencies(req *pulumirpc.InstallDependenciesRequest, stream grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) error {
	dir := req.GetDirectory()
	if info := req.GetInfo(); info != nil && info.GetProgramDirectory() != "" {
		dir = info.GetProgramDirectory()
	}
	cmd := exec.Command("npm", "install")
	cmd.Dir = dir
	cmd.Stdout = streamWriter{send: func(b []byte) error { return stream.Send(&pulumirpc.InstallDependenciesResponse{Stdout: b}) }}
	cmd.Stderr = streamWriter{send: func(b []byte) error { return stream.Send(&pulumirpc.InstallDependenciesResponse{Stderr: b}) }}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm install in %s: %w", dir, err)
	}
	return nil
}

type streamWriter struct{ send func([]byte) error }

func (w streamWriter) Write(p []byte) (int, error) {
	b := append([]byte(nil), p...)
	if err := w.send(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// findRunPath looks for node_modules/@pulumi/pulumi/cmd/run from dir upwards, as Node's
// module resolution would for a program in dir.
func findRunPath(dir string) (string, error) {
	if p := os.Getenv("PULUMI_LANGUAGE_NODEJS_RUN_PATH"); p != "" {
		return p, nil
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(d, "node_modules", "@pulumi", "pulumi", "cmd", "run")
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

func option(info *pulumirpc.ProgramInfo, name string) (interface{}, bool) {
	if info == nil || info.GetOptions() == nil {
		return nil, false
	}
	v, ok := info.GetOptions().AsMap()[name]
	return v, ok
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	programDir := req.GetPwd()
	entry := req.GetProgram()
	rootDir := programDir
	if info != nil {
		if info.GetProgramDirectory() != "" {
			programDir = info.GetProgramDirectory()
		}
		if info.GetRootDirectory() != "" {
			rootDir = info.GetRootDirectory()
		}
		entry = info.GetEntryPoint()
	}
	if entry == "" {
		entry = "."
	}
	runPath, err := findRunPath(programDir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	node, err := exec.LookPath("node")
	if err != nil {
		return &pulumirpc.RunResponse{Error: "could not find node on PATH"}, nil
	}

	var args []string
	if v, ok := option(info, "nodeargs"); ok {
		if s, ok := v.(string); ok && s != "" {
			args = append(args, strings.Fields(s)...)
		}
	}
	args = append(args, runPath)
	flag := func(k, v string) {
		if v != "" {
			args = append(args, "--"+k+"="+v)
		}
	}
	h.mu.Lock()
	engine := h.engineAddress
	h.mu.Unlock()
	flag("monitor", req.GetMonitorAddress())
	flag("engine", engine)
	flag("organization", req.GetOrganization())
	flag("project", req.GetProject())
	flag("stack", req.GetStack())
	flag("pwd", programDir)
	flag("root-directory", rootDir)
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if req.GetParallel() > 0 {
		flag("parallel", fmt.Sprint(req.GetParallel()))
	}
	flag("tracing", h.tracing)
	args = append(args, entry)
	args = append(args, req.GetArgs()...)

	configMap := req.GetConfig()
	if configMap == nil {
		configMap = map[string]string{}
	}
	config, err := json.Marshal(configMap)
	if err != nil {
		return nil, err
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(),
		"PULUMI_CONFIG="+string(config),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretJSON),
	)
	typescript := true
	if v, ok := option(info, "typescript"); ok {
		if b, ok := v.(bool); ok {
			typescript = b
		}
	}
	env = append(env, fmt.Sprintf("PULUMI_NODEJS_TYPESCRIPT=%t", typescript))
	if v, ok := option(info, "tsconfig"); ok {
		if s, ok := v.(string); ok && s != "" {
			env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+s)
		}
	}

	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = programDir
	cmd.Env = env
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if exitErr.ExitCode() == exitCodeBail {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode())}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not run the program: %v", err)}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}
