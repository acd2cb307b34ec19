// A stand-in for etcdctl v3's `alarm list` and `endpoint status` as a member pod's probes run them: the same flags (--endpoints, --cacert, --cert, --key, --dial-timeout, --command-timeout), the same client
// (clientv3, TLS from those files, verified against the endpoint's host name), the same exit codes (0 on success, 1 on
// an error, as etcdctl's ExitWithError(ExitError)). Unknown flags are refused, as etcdctl refuses them.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
)

func main() {
	fs := flag.NewFlagSet("etcdctl", flag.ContinueOnError)
	endpoints := fs.String("endpoints", "127.0.0.1:2379", "")
	cacert := fs.String("cacert", "", "")
	cert := fs.String("cert", "", "")
	key := fs.String("key", "", "")
	dial := fs.Duration("dial-timeout", 2*time.Second, "")
	command := fs.Duration("command-timeout", 5*time.Second, "")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(1)
	}
	args := strings.Join(fs.Args(), " ")
	cfg := clientv3.Config{Endpoints: strings.Split(*endpoints, ","), DialTimeout: *dial}
	if *cacert != "" || *cert != "" || *key != "" {
		info := transport.TLSInfo{TrustedCAFile: *cacert, CertFile: *cert, KeyFile: *key}
		tc, err := info.ClientConfig()
		if err != nil {
			fail(err)
		}
		cfg.TLS = tc
	}
	c, err := clientv3.New(cfg)
	if err != nil {
		fail(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *command)
	defer cancel()
	switch args {
	case "alarm list":
		resp, err := c.AlarmList(ctx)
		if err != nil {
			fail(err)
		}
		for _, a := range resp.Alarms {
			fmt.Printf("memberID:%d alarm:%v\n", a.MemberID, a.Alarm)
		}
	case "endpoint status":
		for _, ep := range cfg.Endpoints {
			resp, err := c.Status(ctx, ep)
			if err != nil {
				fail(err)
			}
			fmt.Printf("%s, %x, %s\n", ep, resp.Header.MemberId, resp.Version)
		}
	default:
		fail(fmt.Errorf("not a command this stand-in runs: %q", args))
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "Error: %v\n", err)
	os.Exit(1)
}
