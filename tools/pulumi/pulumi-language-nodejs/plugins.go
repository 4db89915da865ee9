package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumiservice.local/pulumi-tools/langhost"
)

// packageJSON is what discovery reads of a package.json: the package's name and version, and
// its `pulumi` field (`{ "resource": true, "name", "version", "server", "parameterization" }`).
type packageJSON struct {
	Name    string                  `json:"name"`
	Version string                  `json:"version"`
	Pulumi  plugin.PulumiPluginJSON `json:"pulumi"`
}

// discover finds the resource plugins the packages a program in dir can load declare: the
// packages of dir's node_modules and of every parent folder's node_modules, in the order Node
// resolves them, with their scoped packages (@scope/name) and nested node_modules, symbolic
// links followed (each folder read once). A package declares a plugin with a `pulumi` field
// whose `resource` is true; the plugin's name is `pulumi.name`, else the package's name for
// @pulumi/<name> packages; its version is `pulumi.version`, else the package's version. Policy
// packs (folders with PulumiPolicy.yaml) are skipped, as are unreadable files (logged).
//
// The released host (v3.248) walks every folder below the program's folder instead and reads
// every package.json below a node_modules folder, not only the packages' own; it does not look
// in the parents' node_modules.
func discover(_ context.Context, dir string, _ *pulumirpc.ProgramInfo) []*pulumirpc.PackageDependency {
	abs, err := filepath.Abs(dir)
	if err != nil {
		langhost.Logf(3, "discovering packages: %v", err)
		return nil
	}
	w := &walker{visited: map[string]bool{}}
	for d := abs; ; d = filepath.Dir(d) {
		w.nodeModules(filepath.Join(d, "node_modules"))
		if filepath.Dir(d) == d {
			break
		}
	}
	return w.found
}

type walker struct {
	visited map[string]bool
	found   []*pulumirpc.PackageDependency
}

// resolve returns the real path of p and whether it is a folder not visited yet (marking it).
func (w *walker) resolve(p string) (string, bool) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			langhost.Logf(3, "discovering packages: %v", err)
		}
		return "", false
	}
	st, err := os.Stat(real)
	if err != nil || !st.IsDir() || w.visited[real] {
		return "", false
	}
	w.visited[real] = true
	return real, true
}

// nodeModules reads the packages of a node_modules folder (missing: nothing).
func (w *walker) nodeModules(nm string) {
	real, ok := w.resolve(nm)
	if !ok {
		return
	}
	for _, name := range w.entries(real) {
		switch {
		case strings.HasPrefix(name, "."): // .bin, .package-lock.json, .cache
		case strings.HasPrefix(name, "@"):
			scope := filepath.Join(real, name)
			if scopeReal, ok := w.resolve(scope); ok {
				for _, sub := range w.entries(scopeReal) {
					w.pkg(filepath.Join(scopeReal, sub))
				}
			}
		default:
			w.pkg(filepath.Join(real, name))
		}
	}
}

func (w *walker) entries(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		langhost.Logf(3, "discovering packages: %v", err)
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// pkg reads a package folder's package.json, then its own node_modules.
func (w *walker) pkg(p string) {
	real, ok := w.resolve(p)
	if !ok {
		return
	}
	if policyPack, err := workspace.DetectPolicyPackPathAt(real); err != nil || policyPack != "" {
		return
	}
	file := filepath.Join(real, "package.json")
	if b, err := os.ReadFile(file); err == nil {
		var info packageJSON
		if err := json.Unmarshal(b, &info); err != nil {
			langhost.Logf(3, "discovering packages: %s: %v", file, err)
		} else if dep := langhost.PackageOf(&info.Pulumi, pluginName(info.Name), info.Version, file); dep != nil {
			w.found = append(w.found, dep)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		langhost.Logf(3, "discovering packages: %v", err)
	}
	w.nodeModules(filepath.Join(real, "node_modules"))
}

// pluginName is the plugin name a package named pkg implies when its `pulumi` field names none:
// <name> for @pulumi/<name>, else none (a third-party package must name its plugin).
func pluginName(pkg string) string {
	if rest, ok := strings.CutPrefix(pkg, "@pulumi/"); ok {
		return rest
	}
	return ""
}
