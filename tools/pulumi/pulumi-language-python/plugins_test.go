package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"pulumiservice.local/pulumi-tools/langhost/langhosttest"
)

// write creates file (an absolute path, with its folders) holding body.
func write(t *testing.T, file, body string) {
	t.Helper()
	langhosttest.Write(t, filepath.Dir(file), filepath.Base(file), body)
}

// install puts a distribution (its .dist-info) into site-packages, with package folder pkg
// holding pulumi-plugin.json when plugin is not "".
func install(t *testing.T, site, dist, version, pkg, plugin string) {
	t.Helper()
	info := filepath.Join(site, strings.ReplaceAll(dist, "-", "_")+"-"+version+".dist-info")
	write(t, filepath.Join(info, "METADATA"), "Metadata-Version: 2.1\nName: "+dist+"\nVersion: "+version+"\n")
	write(t, filepath.Join(info, "top_level.txt"), pkg+"\n")
	write(t, filepath.Join(site, pkg, "__init__.py"), "")
	if plugin != "" {
		write(t, filepath.Join(site, pkg, "pulumi-plugin.json"), plugin)
	}
}

// A real virtual environment (python3 -m venv) with fake distributions in its site-packages.
func TestDiscoverVirtualenv(t *testing.T) {
	sys, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	project := t.TempDir()
	venv := filepath.Join(project, "venv")
	if out, err := exec.Command(sys, "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		t.Fatalf("python3 -m venv: %v\n%s", err, out)
	}
	sites, _ := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages"))
	if len(sites) != 1 {
		t.Fatalf("site-packages of %s: %v", venv, sites)
	}
	site := sites[0]
	install(t, site, "pulumi_service", "0.1.0", "pulumi_service", `{"resource":true,"name":"service","version":"0.1.0"}`)
	install(t, site, "pulumi-random", "4.1.0a5", "pulumi_random", `{"resource":true,"server":"https://example.com/plugins"}`)
	install(t, site, "pulumi-aws", "6.0", "pulumi_aws", "") // no file: named pulumi-<name>
	install(t, site, "pulumi-tf", "0.3.0", "pulumi_tf",
		`{"resource":true,"name":"terraform-provider","version":"0.10.0","parameterization":{"name":"tf","version":"0.3.0","value":"e30="}}`)
	install(t, site, "thirdparty", "2.0.0", "thirdparty_sdk", `{"resource":true,"name":"third"}`)
	install(t, site, "pulumi-nores", "1.0.0", "pulumi_nores", `{"resource":false}`)
	install(t, site, "pulumi-policy", "1.0.0", "pulumi_policy", "")
	install(t, site, "pulumi-broken", "1.0.0", "pulumi_broken", `{"resource":`)
	install(t, site, "pulumi-local", "1.0.0+local", "pulumi_local", "") // untranslatable version
	install(t, site, "requests", "2.31.0", "requests", "")

	opts, err := structpb.NewStruct(map[string]interface{}{"virtualenv": "venv"})
	if err != nil {
		t.Fatal(err)
	}
	pkgs, _ := langhosttest.Required(t, discover, langhosttest.Info(project, opts))
	langhosttest.CheckPackages(t, "GetRequiredPackages with virtualenv", pkgs, false,
		"resource aws v6.0.0",
		"resource random v4.1.0-alpha.5 https://example.com/plugins",
		"resource service v0.1.0",
		"resource terraform-provider v0.10.0  param:tf@0.3.0",
		"resource third v2.0.0",
	)

	// Without the option, python3 on PATH (here the environment's own) is asked.
	t.Setenv("PATH", filepath.Join(venv, "bin"))
	if _, plugins := langhosttest.Required(t, discover, langhosttest.Info(project, nil)); len(plugins) != 5 {
		t.Errorf("GetRequiredPlugins with python3 from PATH: %v, want 5 plugins", plugins)
	}
}

// A virtualenv that does not exist yet gives no packages, and no error.
func TestDiscoverMissingVirtualenv(t *testing.T) {
	opts, _ := structpb.NewStruct(map[string]interface{}{"virtualenv": "missing"})
	dir := t.TempDir()
	if got := discover(context.Background(), dir, &pulumirpc.ProgramInfo{RootDirectory: dir, ProgramDirectory: dir, Options: opts}); len(got) != 0 {
		t.Errorf("discover = %v, want none", got)
	}
}

func TestSemverOfPEP440(t *testing.T) {
	for in, want := range map[string]string{
		"1.0": "1.0.0", "2.14.0a1605583329": "2.14.0-alpha.1605583329", "3.1b2": "3.1.0-beta.2", "1.2.3rc4": "1.2.3-rc.4",
		"1.2.3.post4": "1.2.3+post4", "1.2.3.post4.dev5": "1.2.3+post4dev5", "1.2.3.dev1": "1.2.3+dev1",
		"1!2.0": "", "1.0+local": "", "1.2.3.4": "",
	} {
		got, err := semverOfPEP440(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("semverOfPEP440(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
