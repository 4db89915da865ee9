package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"pulumiservice.local/pulumi-tools/langhost/langhosttest"
)

var write = langhosttest.Write

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// A program in root/app: its own node_modules, the parent's (with scoped, nested, linked, broken,
// undeclared and policy-pack packages) are read as Node resolves them.
func TestDiscoverNodeModules(t *testing.T) {
	root := t.TempDir()
	app := filepath.Join(root, "app")
	write(t, app, "index.ts", "")
	write(t, app, "node_modules/@pulumi/random/package.json",
		`{"name":"@pulumi/random","version":"4.16.0","pulumi":{"resource":true}}`)
	// The parent folder's node_modules, as in a workspace whose packages are hoisted.
	write(t, root, "package.json", `{"name":"workspace-root","pulumi":{"resource":true,"name":"not-a-package"}}`)
	write(t, root, "node_modules/@pulumi/aws/package.json",
		`{"name":"@pulumi/aws","version":"v6.1.0","pulumi":{"resource":true}}`)
	write(t, root, "node_modules/@pulumi/pulumi/package.json",
		`{"name":"@pulumi/pulumi","version":"3.248.0","pulumi":{"comment":"deployment-time only"}}`)
	write(t, root, "node_modules/third/package.json",
		`{"name":"third","version":"1.0.0","pulumi":{"resource":true,"name":"thirdp","version":"2.0.0","server":"https://example.com/plugins"}}`)
	// A nested node_modules below a package, with a scoped, parameterized package.
	write(t, root, "node_modules/third/node_modules/@scope/nested/package.json",
		`{"name":"@scope/nested","version":"0.3.0","pulumi":{"resource":true,"name":"terraform-provider","version":"0.10.0",`+
			`"parameterization":{"name":"nested","version":"0.3.0","value":"eyJrIjoxfQ=="}}}`)
	// The same @pulumi/aws nested again: reported once.
	write(t, root, "node_modules/third/node_modules/@pulumi/aws/package.json",
		`{"name":"@pulumi/aws","version":"6.1.0","pulumi":{"resource":true}}`)
	// Not reported: no plugin name for a third-party package, resource false, a broken file,
	// a package.json that is not the package's own, a policy pack, an invalid version.
	write(t, root, "node_modules/noname/package.json", `{"name":"noname","version":"1.0.0","pulumi":{"resource":true}}`)
	write(t, root, "node_modules/notres/package.json", `{"name":"notres","version":"1.0.0","pulumi":{"resource":false,"name":"x"}}`)
	write(t, root, "node_modules/broken/package.json", `{"name":`)
	write(t, root, "node_modules/inner/package.json", `{"name":"inner","version":"1.0.0"}`)
	write(t, root, "node_modules/inner/dist/package.json", `{"name":"inner-dist","version":"1.0.0","pulumi":{"resource":true,"name":"inner"}}`)
	write(t, root, "node_modules/policy/PulumiPolicy.yaml", "runtime: nodejs\n")
	write(t, root, "node_modules/policy/package.json", `{"name":"policy","version":"1.0.0","pulumi":{"resource":true,"name":"policyp"}}`)
	write(t, root, "node_modules/badversion/package.json", `{"name":"badversion","version":"latest","pulumi":{"resource":true,"name":"bad"}}`)
	write(t, root, "node_modules/.bin/x", "")
	// Links, as npm workspaces make them: to a package, and back up to the root (a cycle).
	symlink(t, filepath.Join(root, "node_modules", "third"), filepath.Join(root, "node_modules", "linked-third"))
	symlink(t, root, filepath.Join(root, "node_modules", "workspace-root"))

	pkgs, plugins := langhosttest.Required(t, discover, langhosttest.Info(app, nil))
	langhosttest.CheckPackages(t, "GetRequiredPackages", pkgs, true,
		"resource aws v6.1.0",
		"resource random v4.16.0",
		"resource terraform-provider v0.10.0  param:nested@0.3.0={\"k\":1}",
		"resource thirdp v2.0.0 https://example.com/plugins",
	)
	if n := len(pkgs); n != 4 {
		t.Errorf("GetRequiredPackages returned %d packages, want 4 (duplicates removed)", n)
	}

	langhosttest.CheckPlugins(t, "GetRequiredPlugins", plugins,
		"resource aws v6.1.0",
		"resource random v4.16.0",
		"resource terraform-provider v0.10.0",
		"resource thirdp v2.0.0 https://example.com/plugins",
	)
}

// A program with no node_modules anywhere above it needs nothing, and does not fail.
func TestDiscoverNothing(t *testing.T) {
	dir := t.TempDir()
	if got := discover(context.Background(), filepath.Join(dir, "missing"), nil); len(got) != 0 {
		t.Errorf("discover = %v, want none", got)
	}
}
