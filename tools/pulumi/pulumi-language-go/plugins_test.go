package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumiservice.local/pulumi-tools/langhost"
)

func write(t *testing.T, root, file, body string) {
	t.Helper()
	p := filepath.Join(root, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func describe(pkgs []*pulumirpc.PackageDependency) string {
	var lines []string
	for _, p := range pkgs {
		line := p.GetKind() + " " + p.GetName() + " " + p.GetVersion() + " " + p.GetServer()
		if pp := p.GetParameterization(); pp != nil {
			line += " param:" + pp.GetName() + "@" + pp.GetVersion()
		}
		lines = append(lines, strings.TrimSpace(line))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// A program (in a subfolder of its module) whose go.mod requires modules replaced by local
// folders, each with or without a pulumi-plugin.json in one of the places the host looks.
func TestDiscoverModules(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOWORK", "off")
	root := t.TempDir()
	mods := map[string]string{
		"example.com/pulumi-fake/sdk":       "fake",
		"github.com/acme/pulumi-widget/sdk": "widget",
		"example.com/nested":                "nested",
		"example.com/pseudo/sdk":            "pseudo",
		"example.com/plain":                 "plain",
		"example.com/nores":                 "nores",
		"example.com/broken":                "broken",
		"example.com/param":                 "param",
	}
	for path, dir := range mods {
		write(t, root, dir+"/go.mod", "module "+path+"\n\ngo 1.21\n")
	}
	write(t, root, "fake/pulumi-plugin.json", `{"resource":true,"name":"fake","server":"https://example.com/plugins"}`)
	write(t, root, "widget/go/widget/pulumi-plugin.json", `{"resource":true}`)
	write(t, root, "nested/sub/pulumi-plugin.json", `{"resource":true,"name":"nested","version":"2.0.0"}`)
	write(t, root, "pseudo/go/pulumi-plugin.json", `{"resource":true,"name":"pseudo"}`)
	write(t, root, "nores/pulumi-plugin.json", `{"resource":false,"name":"nores"}`)
	write(t, root, "broken/pulumi-plugin.json", `{"resource":`)
	write(t, root, "param/pulumi-plugin.json",
		`{"resource":true,"name":"terraform-provider","version":"0.10.0","parameterization":{"name":"tf","version":"0.3.0","value":"e30="}}`)
	write(t, root, "prog/go.mod", `module example.com/prog

go 1.21

require (
	example.com/pulumi-fake/sdk v1.2.3
	github.com/acme/pulumi-widget/sdk v0.4.0
	example.com/nested v0.0.0-00010101000000-000000000000
	example.com/pseudo/sdk v1.5.1-0.20200403140640-efb5e2a48a86
	example.com/plain v1.0.0
	example.com/nores v1.0.0 // indirect
	example.com/broken v1.0.0
	example.com/param v0.3.0
)

replace (
	example.com/pulumi-fake/sdk => ../fake
	github.com/acme/pulumi-widget/sdk => ../widget
	example.com/nested => ../nested
	example.com/pseudo/sdk => ../pseudo
	example.com/plain => ../plain
	example.com/nores => ../nores
	example.com/broken => ../broken
	example.com/param => ../param
)
`)
	write(t, root, "prog/cmd/app/main.go", "package main\n\nfunc main() {}\n")
	program := filepath.Join(root, "prog", "cmd", "app")

	base := &langhost.Base{Discover: discover}
	resp, err := base.GetRequiredPackages(context.Background(), &pulumirpc.GetRequiredPackagesRequest{
		Info: &pulumirpc.ProgramInfo{RootDirectory: program, ProgramDirectory: program, EntryPoint: "."},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"resource fake v1.2.3 https://example.com/plugins",
		"resource nested v2.0.0",
		"resource pseudo v1.5.0",
		"resource terraform-provider v0.10.0  param:tf@0.3.0",
		"resource widget v0.4.0",
	}, "\n")
	if got := describe(resp.GetPackages()); got != want {
		t.Errorf("GetRequiredPackages:\n%s\nwant:\n%s", got, want)
	}
	plugins, err := base.GetRequiredPlugins(context.Background(), &pulumirpc.GetRequiredPluginsRequest{
		Info: &pulumirpc.ProgramInfo{RootDirectory: program, ProgramDirectory: program, EntryPoint: "."},
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(plugins.GetPlugins()); n != 5 {
		t.Errorf("GetRequiredPlugins: %v, want 5", plugins.GetPlugins())
	}
}

// A folder outside any module gives no packages, and no error.
func TestDiscoverNoModule(t *testing.T) {
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "")
	if got := discover(context.Background(), t.TempDir(), nil); len(got) != 0 {
		t.Errorf("discover = %v, want none", got)
	}
}

func TestModuleVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3": "v1.2.3", "v1.29.1-0.20200403140640-efb5e2a48a86": "v1.29.0",
		"v0.0.0-20200403140640-efb5e2a48a86": "", "devel": "",
	} {
		got, err := moduleVersion(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("moduleVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
