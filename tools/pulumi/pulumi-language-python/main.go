// Command pulumi-language-python is a small Python language host for the Pulumi engine, a
// stand-in for the one the Pulumi CLI ships.
//
// Why this exists: the upstream host lives in the Go module
// github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3, which the Go module proxy
// reachable from our machines does not serve, as for the Node.js host beside it. The program
// launcher it starts, `pulumi-language-python-exec`, ships in the github.com/pulumi/pulumi/sdk/v3
// module (python/cmd/); scripts/ensure-pulumi.js copies it next to this host.
//
// What it does: it implements the LanguageRuntime gRPC service. Run starts
// `<python> -u pulumi-language-python-exec --monitor ... <entry point>` with the stack's
// configuration in PULUMI_CONFIG, waits for it and reports the result. The Python is chosen by
// Pulumi.yaml's runtime option `virtualenv` (a folder, relative to the project's root; its
// bin/python runs the program, with VIRTUAL_ENV set and its bin first on PATH), else `python3`
// on PATH (`python` when there is no python3). InstallDependencies makes that virtual
// environment when missing and runs `pip install -r requirements.txt` in it. Not supported: the
// `toolchain` option (poetry, uv), `typechecker`, policy packs, code generation and `pulumi new`
// templating. GetRequiredPackages and GetRequiredPlugins report the resource plugins the
// installed packages declare in pulumi-plugin.json (see plugins.go).
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"

	"pulumiservice.local/pulumi-tools/langhost"
)

// version is set at build time with -ldflags "-X main.version=v3.248.0".
var version = "v3.248.0"

// launcher is the file name of Pulumi's Python program launcher.
const launcher = "pulumi-language-python-exec"

type host struct {
	*langhost.Base
}

func main() {
	base := &langhost.Base{Version: version, Discover: discover}
	langhost.Serve("pulumi-language-python", base, &host{Base: base})
}

// virtualenv returns the absolute folder of the `virtualenv` runtime option, or "" when unset.
func virtualenv(info *pulumirpc.ProgramInfo, root string) string {
	venv := langhost.StringOption(info, "virtualenv")
	if venv == "" || filepath.IsAbs(venv) {
		return venv
	}
	return filepath.Join(root, venv)
}

// python returns the interpreter to use and the variables that activate its virtualenv.
// Errors: no virtualenv interpreter and no python3 or python on PATH.
func python(venv string) (string, []string, error) {
	if venv != "" {
		bin := filepath.Join(venv, "bin")
		env := []string{"VIRTUAL_ENV=" + venv, "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
		return filepath.Join(bin, "python"), env, nil
	}
	for _, name := range []string{"python3", "python"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil, nil
		}
	}
	return "", nil, fmt.Errorf("no python3 or python on PATH")
}

// launcherPath finds pulumi-language-python-exec next to this host, else on PATH.
func launcherPath() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), launcher)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath(launcher)
	if err != nil {
		return "", fmt.Errorf("%s is neither next to this language host nor on PATH", launcher)
	}
	return p, nil
}

func (h *host) About(_ context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	info := req.GetInfo()
	py, _, err := python(virtualenv(info, info.GetRootDirectory()))
	if err != nil {
		return nil, err
	}
	return langhost.About(py)
}

// InstallDependencies makes the `virtualenv` folder when it is set and missing, then installs
// requirements.txt (when the program has one) with that environment's pip.
func (h *host) InstallDependencies(req *pulumirpc.InstallDependenciesRequest, stream grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) error {
	dir := langhost.InstallDir(req)
	info := req.GetInfo()
	root := dir
	if info.GetRootDirectory() != "" {
		root = info.GetRootDirectory()
	}
	venv := virtualenv(info, root)
	if venv != "" {
		if _, err := os.Stat(filepath.Join(venv, "bin", "python")); err != nil {
			sys, _, err := python("")
			if err != nil {
				return err
			}
			if err := langhost.Stream(exec.Command(sys, "-m", "venv", venv), stream); err != nil {
				return err
			}
		}
	}
	requirements := filepath.Join(dir, "requirements.txt")
	if _, err := os.Stat(requirements); err != nil {
		return nil
	}
	py, env, err := python(venv)
	if err != nil {
		return err
	}
	cmd := exec.Command(py, "-m", "pip", "install", "-r", requirements)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return langhost.Stream(cmd, stream)
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	prog := langhost.ProgramOf(req)
	py, venvEnv, err := python(virtualenv(req.GetInfo(), prog.Root))
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	exe, err := launcherPath()
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	engine, tracing := h.Engine()
	// The launcher's flags (argparse, underscores); --parallel and --dry_run are always given.
	args := []string{"-u", exe,
		"--monitor", req.GetMonitorAddress(),
		"--engine", engine,
		"--project", req.GetProject(),
		"--stack", req.GetStack(),
		"--pwd", prog.Dir,
		"--root_directory", prog.Root,
		"--parallel", fmt.Sprint(req.GetParallel()),
		"--dry_run", fmt.Sprint(req.GetDryRun()),
	}
	if org := req.GetOrganization(); org != "" {
		args = append(args, "--organization", org)
	}
	if tracing != "" {
		args = append(args, "--tracing", tracing)
	}
	args = append(args, prog.Entry)
	args = append(args, req.GetArgs()...)

	config, err := langhost.ConfigEnv(req)
	if err != nil {
		return nil, err
	}
	env := append(append(venvEnv, config...), "PYTHONUNBUFFERED=1")
	return langhost.RunProgram(prog.Command(ctx, env, py, args...)), nil
}
