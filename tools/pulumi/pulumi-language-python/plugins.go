package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumiservice.local/pulumi-tools/langhost"
)

// listScript prints, as JSON, the distributions installed for the interpreter that runs it (what
// `pip list` reports: importlib.metadata reads the same .dist-info folders on sys.path, the first
// of a name winning as for imports), each with its version and the pulumi-plugin.json of its
// top-level package folder ("" when none). Top-level packages come from top_level.txt, else the
// distribution's name with "-" as "_"; their folders from the import system, so editable
// installs are found too.
const listScript = `
import importlib.metadata as md, importlib.util, json, os, re, sys
out, seen = [], set()
for dist in md.distributions():
    name = re.sub(r"[-_.]+", "-", (dist.metadata["Name"] or "").lower())
    if not name or name in seen:
        continue
    seen.add(name)
    found = ""
    try:
        tops = (dist.read_text("top_level.txt") or "").split() or [dist.metadata["Name"].replace("-", "_")]
        for top in tops:
            spec = importlib.util.find_spec(top)
            for loc in (spec.submodule_search_locations or []) if spec else []:
                f = os.path.join(str(loc), "pulumi-plugin.json")
                if not found and os.path.isfile(f):
                    found = f
    except Exception:
        pass
    out.append({"name": name, "version": dist.version, "plugin": found})
print(json.dumps(out))
`

// packagesWithoutPlugins are the `pulumi-` packages known to have no plugin (the released host
// skips them too).
var packagesWithoutPlugins = map[string]bool{"pulumi-policy": true, "pulumi-esc-sdk": true}

// discover finds the resource plugins the Python packages installed for the program declare:
// with the interpreter Run uses (the `virtualenv` option's, else python3 on PATH), it lists the
// installed distributions (listScript); a distribution whose top-level package folder holds a
// pulumi-plugin.json with `resource: true` needs that plugin (name and version from the file,
// else from the distribution: its name without "pulumi-", its PEP 440 version as a semantic
// version); a `pulumi-<name>` distribution without the file needs plugin <name>, as the
// released host assumes for older SDKs. Failures (no interpreter, an unreadable file) are
// logged and skip what they concern.
func discover(ctx context.Context, dir string, info *pulumirpc.ProgramInfo) []*pulumirpc.PackageDependency {
	root := info.GetRootDirectory()
	if root == "" {
		root = dir
	}
	venv := virtualenv(info, root)
	py, venvEnv, err := python(venv)
	if err == nil && venv != "" {
		_, err = os.Stat(py)
	}
	if err != nil {
		langhost.Logf(3, "discovering packages: %v", err)
		return nil
	}
	cmd := exec.CommandContext(ctx, py, "-c", listScript)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), venvEnv...)
	out, err := cmd.Output()
	if err != nil {
		langhost.Logf(3, "discovering packages: %s -c <list script>: %v", py, err)
		return nil
	}
	var dists []struct{ Name, Version, Plugin string }
	if err := json.Unmarshal(out, &dists); err != nil {
		langhost.Logf(3, "discovering packages: reading the installed distributions: %v", err)
		return nil
	}
	var found []*pulumirpc.PackageDependency
	for _, d := range dists {
		if packagesWithoutPlugins[d.Name] {
			continue
		}
		var p *plugin.PulumiPluginJSON
		where := d.Name
		if d.Plugin != "" {
			where = d.Plugin
			if p, err = plugin.LoadPulumiPluginJSON(d.Plugin); err != nil {
				langhost.Logf(3, "discovering packages: %s: %v", d.Plugin, err)
				continue
			}
		} else if strings.HasPrefix(d.Name, "pulumi-") {
			p = &plugin.PulumiPluginJSON{Resource: true}
		} else {
			continue
		}
		if dep := langhost.PackageOfRelease(p, strings.TrimPrefix(d.Name, "pulumi-"), where, d.Name, d.Version, semverOfPEP440); dep != nil {
			found = append(found, dep)
		}
	}
	return found
}

// pep440 matches the versions semverOfPEP440 translates: N(.N)*[{a|b|rc}N][.postN][.devN].
var pep440 = regexp.MustCompile(`^(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?$`)

// semverOfPEP440 turns a Python package version into the plugin's semantic version, as the
// released host does: at least three numbers (1.0 is 1.0.0), a1/b1/rc1 as -alpha.1/-beta.1/-rc.1,
// .postN and .devN as build metadata (+postN, +devN, +postNdevM).
// Errors: epochs, local versions and other forms it does not translate.
func semverOfPEP440(v string) (string, error) {
	m := pep440.FindStringSubmatch(v)
	if m == nil {
		return "", fmt.Errorf("cannot translate version %q to a semantic version", v)
	}
	nums := strings.Split(m[1], ".")
	if len(nums) > 3 {
		return "", fmt.Errorf("version %q has more than three numbers", v)
	}
	for len(nums) < 3 {
		nums = append(nums, "0")
	}
	s := strings.Join(nums, ".")
	if m[2] != "" {
		s += "-" + map[string]string{"a": "alpha", "b": "beta", "rc": "rc"}[m[2]] + "." + m[3]
	}
	build := ""
	if m[4] != "" {
		build += "post" + m[4]
	}
	if m[5] != "" {
		build += "dev" + m[5]
	}
	if build != "" {
		s += "+" + build
	}
	return s, nil
}
