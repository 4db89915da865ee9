package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"pulumiservice.local/pulumi-tools/langhost"
)

// modInfo is what discovery reads of `go list -m -json` and `go mod download -json`.
type modInfo struct {
	Path    string
	Version string
	Dir     string
}

// discover finds the resource plugins the modules a Go program requires declare, as the
// released host does: the modules its go.mod requires (direct and indirect; the go.mod `go
// list -m` finds from the program's folder, with GOWORK=off), located with `go list -m -json`
// (in vendor mode, vendor/<module>; modules not in the module cache are fetched with `go mod
// download -json`). A module declares a plugin with a pulumi-plugin.json (`resource: true`) in
// its root folder, go/, go/*/ or */ (the first found); the plugin's name is the file's, else
// what follows the first "-" in the third element of the module path
// (github.com/pulumi/pulumi-aws/sdk: aws); its version the file's, else the module's (a
// pseudo-version vX.Y.(Z+1)-0.<date>-<hash> as vX.Y.Z). A missing go binary or go.mod, or a
// failed go command, is logged and gives no packages; an unreadable file skips its module.
func discover(ctx context.Context, dir string, _ *pulumirpc.ProgramInfo) []*pulumirpc.PackageDependency {
	modDir, requires, err := requirements(ctx, dir)
	if err != nil {
		langhost.Logf(3, "discovering packages: %v", err)
		return nil
	}
	mods, err := moduleSources(ctx, modDir, requires)
	if err != nil {
		langhost.Logf(3, "discovering packages: %v", err)
		return nil
	}
	var found []*pulumirpc.PackageDependency
	for _, m := range mods {
		p, file, err := pluginJSON(m.Dir)
		if err != nil {
			langhost.Logf(3, "discovering packages: ignoring %s: %v", m.Path, err)
			continue
		}
		if p == nil || !p.Resource {
			continue
		}
		if dep := langhost.PackageOfRelease(p, pluginNameOf(m.Path), file, m.Path, m.Version, moduleVersion); dep != nil {
			found = append(found, dep)
		}
	}
	return found
}

// requirements returns the folder of the go.mod governing dir and the module paths it requires.
func requirements(ctx context.Context, dir string) (string, []string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.GoMod}}")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("go list -m in %s: %w%s", dir, err, stderrOf(err))
	}
	gomod := string(bytes.TrimSpace(out))
	if gomod == "" || gomod == os.DevNull {
		return "", nil, fmt.Errorf("%s is not in a Go module", dir)
	}
	body, err := os.ReadFile(gomod)
	if err != nil {
		return "", nil, err
	}
	f, err := modfile.Parse(gomod, body, nil)
	if err != nil {
		return "", nil, err
	}
	paths := make([]string, 0, len(f.Require))
	for _, r := range f.Require {
		paths = append(paths, r.Mod.Path)
	}
	return filepath.Dir(gomod), paths, nil
}

// moduleSources locates the modules' folders (see discover); modules without one are dropped.
func moduleSources(ctx context.Context, modDir string, paths []string) ([]modInfo, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	mods, err := goJSON(ctx, modDir, append([]string{"list", "-m", "-json"}, paths...))
	if err != nil {
		return nil, err
	}
	vendor := filepath.Join(modDir, "vendor")
	if _, err := os.Stat(vendor); err == nil {
		kept := mods[:0]
		for _, m := range mods {
			if m.Dir == "" {
				if st, err := os.Stat(filepath.Join(vendor, m.Path)); err == nil && st.IsDir() {
					m.Dir = filepath.Join(vendor, m.Path)
				}
			}
			if m.Dir != "" {
				kept = append(kept, m)
			}
		}
		return kept, nil
	}
	var missing []string
	index := map[string]int{}
	for i, m := range mods {
		index[m.Path] = i
		if m.Dir == "" {
			missing = append(missing, m.Path)
		}
	}
	if len(missing) > 0 {
		downloaded, err := goJSON(ctx, modDir, append([]string{"mod", "download", "-json"}, missing...))
		if err != nil {
			langhost.Logf(3, "discovering packages: %v", err)
		}
		for _, d := range downloaded {
			if i, ok := index[d.Path]; ok && mods[i].Dir == "" {
				mods[i].Dir = d.Dir
			}
		}
	}
	kept := mods[:0]
	for _, m := range mods {
		if m.Dir != "" {
			kept = append(kept, m)
		}
	}
	return kept, nil
}

// goJSON runs `go <args>` in dir and decodes the JSON objects it prints (those decoded before
// a failure are returned with the error).
func goJSON(ctx context.Context, dir string, args []string) ([]modInfo, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	var mods []modInfo
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var m modInfo
		if derr := dec.Decode(&m); derr != nil {
			return mods, fmt.Errorf("go %s: %w", strings.Join(args[:2], " "), derr)
		}
		mods = append(mods, m)
	}
	if err != nil {
		return mods, fmt.Errorf("go %s in %s: %w%s", strings.Join(args[:2], " "), dir, err, stderrOf(err))
	}
	return mods, nil
}

func stderrOf(err error) string {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && len(exitErr.Stderr) > 0 {
		return ": " + strings.TrimSpace(string(exitErr.Stderr))
	}
	return ""
}

// pluginJSON reads the first pulumi-plugin.json of a module folder, looking in the folder, go/,
// go/*/ and */ in that order; nil when there is none.
func pluginJSON(dir string) (*plugin.PulumiPluginJSON, string, error) {
	candidates := []string{filepath.Join(dir, "pulumi-plugin.json"), filepath.Join(dir, "go", "pulumi-plugin.json")}
	for _, pattern := range []string{filepath.Join(dir, "go", "*", "pulumi-plugin.json"), filepath.Join(dir, "*", "pulumi-plugin.json")} {
		matches, _ := filepath.Glob(pattern)
		candidates = append(candidates, matches...)
	}
	for _, file := range candidates {
		p, err := plugin.LoadPulumiPluginJSON(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, file, fmt.Errorf("%s: %w", file, err)
		}
		return p, file, nil
	}
	return nil, "", nil
}

// pluginNameOf is the plugin name a module path implies: what follows the first "-" in its
// third element (github.com/pulumi/pulumi-aws/sdk/v6: aws), else "".
func pluginNameOf(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) < 3 {
		return ""
	}
	_, name, ok := strings.Cut(parts[2], "-")
	if !ok {
		return ""
	}
	return name
}

// moduleVersion is the plugin version a module version implies: the version itself, or for a
// pseudo-version (a commit after tag vX.Y.Z, written vX.Y.(Z+1)-0.<date>-<hash>) vX.Y.Z.
// Errors: not a semantic version, or a pseudo-version with no tag before it.
func moduleVersion(version string) (string, error) {
	v, err := semver.ParseTolerant(version)
	if err != nil {
		return "", errors.New("the module's version is not a semantic version")
	}
	if !module.IsPseudoVersion(version) {
		return version, nil
	}
	if v.Major == 0 && v.Minor == 0 && v.Patch == 0 {
		return "", errors.New("a pseudo-version with no release before it")
	}
	patch := v.Patch
	if patch > 0 {
		patch--
	}
	return fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, patch), nil
}
