package langhost

import (
	"context"
	"strings"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Discover finds the packages (resource plugins, with their parameterization if any) a program
// needs. dir is the program's folder and info the request's program information (nil for an
// old engine that sends only a folder). Problems along the way are logged (Logf) and skipped,
// as the released hosts do, so that discovery never fails a deployment.
type Discover func(ctx context.Context, dir string, info *pulumirpc.ProgramInfo) []*pulumirpc.PackageDependency

// Logf logs a discovery message at verbosity level (seen with `pulumi -v=<level> --logflow`,
// like the released hosts' logs; nothing is printed otherwise).
func Logf(level int32, format string, args ...interface{}) {
	logging.V(level).Infof(format, args...)
}

// GetRequiredPackages reports the packages Discover finds, without duplicates (none when the
// host has no Discover).
func (b *Base) GetRequiredPackages(ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{Packages: b.packages(ctx, req.GetInfo(), "")}, nil
}

// GetRequiredPlugins reports the plugins of the packages Discover finds (name, kind, version,
// server: a parameterized package needs its base plugin), without duplicates. The released
// hosts of v3.248 answer Unimplemented and the engine asks GetRequiredPackages first; this
// answer serves engines or tools that still ask for plugins.
func (b *Base) GetRequiredPlugins(ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{Plugins: PluginsOf(b.packages(ctx, req.GetInfo(), req.GetPwd()))}, nil //nolint:staticcheck // Pwd: older engines
}

func (b *Base) packages(ctx context.Context, info *pulumirpc.ProgramInfo, pwd string) []*pulumirpc.PackageDependency {
	if b.Discover == nil {
		return nil
	}
	dir := pwd
	if info.GetProgramDirectory() != "" {
		dir = info.GetProgramDirectory()
	}
	if dir == "" {
		Logf(3, "discovering packages: the request names no program folder")
		return nil
	}
	return DedupePackages(b.Discover(ctx, dir, info))
}

// DedupePackages drops packages equal to an earlier one (same name, kind, version, server and
// parameterization), keeping the order of first appearance.
func DedupePackages(pkgs []*pulumirpc.PackageDependency) []*pulumirpc.PackageDependency {
	seen := map[string]bool{}
	out := []*pulumirpc.PackageDependency{}
	for _, p := range pkgs {
		key := strings.Join([]string{p.GetName(), p.GetKind(), p.GetVersion(), p.GetServer()}, "\x00")
		if pp := p.GetParameterization(); pp != nil {
			key += "\x00" + strings.Join([]string{pp.GetName(), pp.GetVersion(), string(pp.GetValue())}, "\x00")
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, p)
	}
	return out
}

// PluginsOf returns the plugins the packages need (name, kind, version, server), without
// duplicates.
func PluginsOf(pkgs []*pulumirpc.PackageDependency) []*pulumirpc.PluginDependency {
	seen := map[string]bool{}
	out := []*pulumirpc.PluginDependency{}
	for _, p := range pkgs {
		key := strings.Join([]string{p.GetName(), p.GetKind(), p.GetVersion(), p.GetServer()}, "\x00")
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, &pulumirpc.PluginDependency{Name: p.GetName(), Kind: p.GetKind(), Version: p.GetVersion(), Server: p.GetServer()})
	}
	return out
}

// PluginVersion returns version with a leading "v" (added when missing), or false when it is
// not a semantic version the engine accepts (it would fail the whole deployment on it, so the
// hosts skip such a package and log why).
func PluginVersion(version string) (string, bool) {
	if version == "" {
		return "", false
	}
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	if _, err := semver.ParseTolerant(version); err != nil {
		return "", false
	}
	return version, true
}

// PackageOf makes the resource package a pulumi-plugin.json (or a package.json's `pulumi`
// field) describes, given the name and version to use when the file names none: nil, with the
// reason logged, when the file says `resource: false` or no valid name or version results.
// where says where the description was found (for the log).
func PackageOf(p *plugin.PulumiPluginJSON, defaultName, defaultVersion, where string) *pulumirpc.PackageDependency {
	if p == nil || !p.Resource {
		return nil
	}
	name := p.Name
	if name == "" {
		name = defaultName
	}
	if name == "" {
		Logf(3, "ignoring %s: no plugin name", where)
		return nil
	}
	v := p.Version
	if v == "" {
		v = defaultVersion
	}
	version, ok := PluginVersion(v)
	if !ok {
		Logf(3, "ignoring %s: plugin version %q is not a semantic version", where, v)
		return nil
	}
	dep := &pulumirpc.PackageDependency{Name: name, Kind: "resource", Version: version, Server: p.Server}
	if pp := p.Parameterization; pp != nil {
		dep.Parameterization = &pulumirpc.PackageParameterization{Name: pp.Name, Version: pp.Version, Value: pp.Value}
	}
	return dep
}

// PackageOfRelease is PackageOf for a package a package manager installed: when the
// description names no version, the release's version (pkgVersion, of the package named pkg)
// is translated with toSemver, and a version it cannot translate is logged and gives nil.
func PackageOfRelease(p *plugin.PulumiPluginJSON, defaultName, where, pkg, pkgVersion string, toSemver func(string) (string, error)) *pulumirpc.PackageDependency {
	if p == nil {
		return nil
	}
	version := p.Version
	if version == "" {
		var err error
		if version, err = toSemver(pkgVersion); err != nil {
			Logf(3, "discovering packages: ignoring %s %s: %v", pkg, pkgVersion, err)
			return nil
		}
	}
	return PackageOf(p, defaultName, version, where)
}
