package langhost

import (
	"context"
	"fmt"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func TestPluginVersion(t *testing.T) {
	for in, want := range map[string]string{"1.2.3": "v1.2.3", "v1.2.3": "v1.2.3", "0.1.0-alpha.1": "v0.1.0-alpha.1", "latest": "", "": ""} {
		got, ok := PluginVersion(in)
		if got != want || ok != (want != "") {
			t.Errorf("PluginVersion(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestPackageOf(t *testing.T) {
	if p := PackageOf(&plugin.PulumiPluginJSON{Resource: false, Name: "x", Version: "1.0.0"}, "", "", "f"); p != nil {
		t.Errorf("resource false: %v, want nil", p)
	}
	if p := PackageOf(&plugin.PulumiPluginJSON{Resource: true}, "", "1.0.0", "f"); p != nil {
		t.Errorf("no name: %v, want nil", p)
	}
	p := PackageOf(&plugin.PulumiPluginJSON{Resource: true, Server: "https://s"}, "aws", "6.0.0", "f")
	if p.GetName() != "aws" || p.GetVersion() != "v6.0.0" || p.GetKind() != "resource" || p.GetServer() != "https://s" {
		t.Errorf("defaults: %v", p)
	}

	// PackageOfRelease: the release's version, translated, when the file names none.
	translate := func(v string) (string, error) {
		if v == "bad" {
			return "", fmt.Errorf("untranslatable")
		}
		return v + ".0", nil
	}
	if p := PackageOfRelease(&plugin.PulumiPluginJSON{Resource: true}, "aws", "f", "pkg", "6.1", translate); p.GetVersion() != "v6.1.0" {
		t.Errorf("release version: %v, want v6.1.0", p)
	}
	if p := PackageOfRelease(&plugin.PulumiPluginJSON{Resource: true, Version: "2.0.0"}, "aws", "f", "pkg", "bad", translate); p.GetVersion() != "v2.0.0" {
		t.Errorf("file's version: %v, want v2.0.0", p)
	}
	if p := PackageOfRelease(&plugin.PulumiPluginJSON{Resource: true}, "aws", "f", "pkg", "bad", translate); p != nil {
		t.Errorf("untranslatable release version: %v, want nil", p)
	}
	if p := PackageOfRelease(nil, "aws", "f", "pkg", "6.1", translate); p != nil {
		t.Errorf("no description: %v, want nil", p)
	}
}

// The RPCs report Discover's packages once each; GetRequiredPlugins takes the folder from the
// deprecated pwd when the request has no program information.
func TestRequiredRPCs(t *testing.T) {
	var dirs []string
	b := &Base{Discover: func(_ context.Context, dir string, _ *pulumirpc.ProgramInfo) []*pulumirpc.PackageDependency {
		dirs = append(dirs, dir)
		return []*pulumirpc.PackageDependency{
			{Name: "a", Kind: "resource", Version: "v1.0.0"},
			{Name: "a", Kind: "resource", Version: "v1.0.0"},
			{Name: "a", Kind: "resource", Version: "v1.0.0", Parameterization: &pulumirpc.PackageParameterization{Name: "p", Version: "1.0.0"}},
			{Name: "b", Kind: "resource", Version: "v2.0.0", Server: "https://s"},
		}
	}}
	pk, _ := b.GetRequiredPackages(context.Background(), &pulumirpc.GetRequiredPackagesRequest{Info: &pulumirpc.ProgramInfo{ProgramDirectory: "/prog"}})
	if len(pk.GetPackages()) != 3 {
		t.Errorf("packages: %v, want 3", pk.GetPackages())
	}
	pl, _ := b.GetRequiredPlugins(context.Background(), &pulumirpc.GetRequiredPluginsRequest{Pwd: "/old"})
	if len(pl.GetPlugins()) != 2 || pl.GetPlugins()[1].GetServer() != "https://s" {
		t.Errorf("plugins: %v, want a and b", pl.GetPlugins())
	}
	if len(dirs) != 2 || dirs[0] != "/prog" || dirs[1] != "/old" {
		t.Errorf("folders asked: %v", dirs)
	}
	none, _ := (&Base{}).GetRequiredPackages(context.Background(), &pulumirpc.GetRequiredPackagesRequest{})
	if len(none.GetPackages()) != 0 {
		t.Errorf("no Discover: %v", none.GetPackages())
	}
}
