package main

import (
	"context"
	"path/filepath"
	"testing"

	"pulumiservice.local/pulumi-tools/langhost/langhosttest"
)

var write = langhosttest.Write

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

	pkgs, plugins := langhosttest.Required(t, discover, langhosttest.Info(program, nil))
	langhosttest.CheckPackages(t, "GetRequiredPackages", pkgs, false,
		"resource fake v1.2.3 https://example.com/plugins",
		"resource nested v2.0.0",
		"resource pseudo v1.5.0",
		"resource terraform-provider v0.10.0  param:tf@0.3.0",
		"resource widget v0.4.0",
	)
	if len(plugins) != 5 {
		t.Errorf("GetRequiredPlugins: %v, want 5", plugins)
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
