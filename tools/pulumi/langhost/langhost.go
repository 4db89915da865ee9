// Package langhost holds what this repository's language hosts (pulumi-language-nodejs,
// pulumi-language-python and pulumi-language-go, stand-ins for the ones the Pulumi CLI ships;
// see their main.go) share: the gRPC server start-up, the LanguageRuntime calls they answer
// alike, and the helpers their Run and InstallDependencies use.
package langhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// ExitCodeBail is the exit code of Pulumi's program launchers (Node.js and Python alike) when
// the program failed and the error was already reported to the engine.
const ExitCodeBail = 32

// Base answers the LanguageRuntime calls the hosts answer the same way. GetRequiredPackages and
// GetRequiredPlugins (plugins.go) report what the host's Discover finds: the resource plugins
// the program's installed packages declare, which the engine then installs when missing.
type Base struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	// Version is what GetPluginInfo reports (e.g. "v3.248.0").
	Version string
	// Runtime is the executable About reports, looked up on PATH ("node", "go").
	Runtime string
	// Install is the command InstallDependencies runs in the program's folder
	// (e.g. npm install).
	Install []string
	// Discover finds the packages the program needs (plugins.go); nil reports none.
	Discover      Discover
	mu            sync.Mutex
	engineAddress string
	tracing       string
}

// Serve parses the host's command line (`<host> [-flags...] <engine address>`: -tracing, and
// -v=<level> and -logtostderr for the discovery logs as the engine passes them with --logflow;
// other flags, such as -root, are accepted and ignored so newer engines keep working), starts
// the gRPC server with srv, prints its port on stdout as the engine expects, and serves until
// the engine stops it. name prefixes the errors it prints before exiting with status 1.
func Serve(name string, base *Base, srv pulumirpc.LanguageRuntimeServer) {
	verbose, logToStderr := 0, false
	for _, a := range os.Args[1:] {
		switch {
		case strings.HasPrefix(a, "-tracing="), strings.HasPrefix(a, "--tracing="):
			base.tracing = a[strings.Index(a, "=")+1:]
		case strings.HasPrefix(a, "-v="), strings.HasPrefix(a, "--v="):
			verbose, _ = strconv.Atoi(a[strings.Index(a, "=")+1:])
		case a == "-logtostderr", a == "--logtostderr", a == "-logtostderr=true", a == "--logtostderr=true":
			logToStderr = true
		case strings.HasPrefix(a, "-"):
		default:
			base.engineAddress = a
		}
	}
	logging.InitLogging(logToStderr, verbose, false)
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(s *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(s, srv)
			return nil
		},
		Options: rpcutil.OpenTracingServerInterceptorOptions(nil),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: could not start the RPC server: %v\n", name, err)
		os.Exit(1)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "%s: RPC server stopped: %v\n", name, err)
		os.Exit(1)
	}
}

// Engine returns the engine's address and the tracing endpoint (both may be empty).
func (b *Base) Engine() (address, tracing string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.engineAddress, b.tracing
}

// Handshake records the engine's address when the engine sends it.
func (b *Base) Handshake(_ context.Context, req *pulumirpc.LanguageHandshakeRequest) (*pulumirpc.LanguageHandshakeResponse, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if req.GetEngineAddress() != "" {
		b.engineAddress = req.GetEngineAddress()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

// GetPluginInfo reports Version.
func (b *Base) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: b.Version}, nil
}

// GetProgramDependencies returns none (`pulumi about` shows an empty list).
func (b *Base) GetProgramDependencies(context.Context, *pulumirpc.GetProgramDependenciesRequest) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return &pulumirpc.GetProgramDependenciesResponse{}, nil
}

// RuntimeOptionsPrompts asks nothing (`pulumi new` templating is not supported).
func (b *Base) RuntimeOptionsPrompts(context.Context, *pulumirpc.RuntimeOptionsRequest) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

// About reports Runtime's path on PATH and its version (see About).
// Errors: FailedPrecondition when it is not on PATH.
func (b *Base) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	path, err := exec.LookPath(b.Runtime)
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "%s is not on PATH", b.Runtime)
	}
	return About(path)
}

// InstallDependencies runs Install in the program's folder and streams its output.
func (b *Base) InstallDependencies(req *pulumirpc.InstallDependenciesRequest, stream grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) error {
	cmd := exec.Command(b.Install[0], b.Install[1:]...)
	cmd.Dir = InstallDir(req)
	return Stream(cmd, stream)
}

// About reports the runtime executable (a path) and what `<executable> --version` prints.
func About(executable string) (*pulumirpc.AboutResponse, error) {
	out, err := exec.Command(executable, "--version").CombinedOutput()
	if err != nil {
		return nil, status.Errorf(codes.Internal, "%s --version: %v", executable, err)
	}
	return &pulumirpc.AboutResponse{Executable: executable, Version: strings.TrimSpace(string(out))}, nil
}

// Option returns the runtime option `name` of Pulumi.yaml (`runtime.options.<name>`).
func Option(info *pulumirpc.ProgramInfo, name string) (interface{}, bool) {
	if info == nil || info.GetOptions() == nil {
		return nil, false
	}
	v, ok := info.GetOptions().AsMap()[name]
	return v, ok
}

// StringOption returns the runtime option `name` when it is a non-empty string, else "".
func StringOption(info *pulumirpc.ProgramInfo, name string) string {
	v, _ := Option(info, name)
	s, _ := v.(string)
	return s
}

// Program is where a Run request's program lives: its folder, the project's root folder (the
// one holding Pulumi.yaml) and its entry point ("." when the request names none).
type Program struct{ Dir, Root, Entry string }

// ProgramOf reads the program's folders and entry point from a Run request.
func ProgramOf(req *pulumirpc.RunRequest) Program {
	p := Program{Dir: req.GetPwd(), Root: req.GetPwd(), Entry: req.GetProgram()}
	if info := req.GetInfo(); info != nil {
		if info.GetProgramDirectory() != "" {
			p.Dir = info.GetProgramDirectory()
		}
		if info.GetRootDirectory() != "" {
			p.Root = info.GetRootDirectory()
		}
		p.Entry = info.GetEntryPoint()
	}
	if p.Entry == "" {
		p.Entry = "."
	}
	return p
}

// Command makes the command that runs name with args in the program's folder, with this
// process's environment followed by env (a later variable overrides an earlier one). With
// env nil the command keeps exec's default environment (this process's, with PWD set to the
// program's folder).
func (p Program) Command(ctx context.Context, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = p.Dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	return cmd
}

// ConfigEnv returns the variables Pulumi's launchers read the stack's configuration from:
// PULUMI_CONFIG (a JSON object of key to value) and PULUMI_CONFIG_SECRET_KEYS (a JSON array).
func ConfigEnv(req *pulumirpc.RunRequest) ([]string, error) {
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
	return []string{"PULUMI_CONFIG=" + string(config), "PULUMI_CONFIG_SECRET_KEYS=" + string(secretJSON)}, nil
}

// RunProgram runs cmd with the host's stdout and stderr (the engine shows them) and turns its
// end into a RunResponse: Bail for ExitCodeBail, else an error naming the exit code.
func RunProgram(cmd *exec.Cmd) *pulumirpc.RunResponse {
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if exitErr.ExitCode() == ExitCodeBail {
				return &pulumirpc.RunResponse{Bail: true}
			}
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode())}
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not run the program: %v", err)}
	}
	return &pulumirpc.RunResponse{}
}

// InstallDir is the folder an InstallDependencies request is about.
func InstallDir(req *pulumirpc.InstallDependenciesRequest) string {
	if info := req.GetInfo(); info != nil && info.GetProgramDirectory() != "" {
		return info.GetProgramDirectory()
	}
	return req.GetDirectory()
}

// Stream runs cmd, sending its stdout and stderr to the engine as they come.
// Errors: the command's failure, wrapped with its command line.
func Stream(cmd *exec.Cmd, stream grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) error {
	cmd.Stdout = streamWriter{send: func(b []byte) error { return stream.Send(&pulumirpc.InstallDependenciesResponse{Stdout: b}) }}
	cmd.Stderr = streamWriter{send: func(b []byte) error { return stream.Send(&pulumirpc.InstallDependenciesResponse{Stderr: b}) }}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s in %s: %w", strings.Join(cmd.Args, " "), cmd.Dir, err)
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
