package main

import (
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "github.com/go-sql-driver/mysql"

	"strata/engine"
	"strata/mysql/binlog"
)

// runBackup is `strata backup --to DIR`: it asks a running server for an
// online backup into DIR on the server's machine (CLONE LOCAL DATA
// DIRECTORY, server SRV-CLONE; engine EN-12).
func runBackup(args []string) error {
	fs := flag.NewFlagSet("strata backup", flag.ContinueOnError)
	to := fs.String("to", "", "new directory for the backup, on the server's machine")
	host := fs.String("host", "127.0.0.1", "server address")
	port := fs.Int("port", 3306, "server port")
	user := fs.String("user", "root", "account with BACKUP_ADMIN")
	password := fs.String("password", os.Getenv("STRATA_PASSWORD"), "its password (default $STRATA_PASSWORD)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *to == "" {
		return fmt.Errorf("backup: --to DIR is required")
	}
	dir, err := filepath.Abs(*to)
	if err != nil {
		return err
	}
	db, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/", *user, *password, hostPort(*host, *port)))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("CLONE LOCAL DATA DIRECTORY = '" + strings.ReplaceAll(strings.ReplaceAll(dir, `\`, `\\`), "'", `\'`) + "'"); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Printf("backup written to %s; prepare it with: strata restore %s\n", dir, dir)
	return nil
}

func hostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + strconv.Itoa(port)
	}
	return host + ":" + strconv.Itoa(port)
}

// runRestore is `strata restore DIR`: it prepares a backup (recovery:
// the redo copied with it makes the pages consistent, then a checkpoint)
// so that `strata --datadir DIR` serves it, and reports the binary log
// position the backup is at (also in DIR/restore.json), where a replica
// started from it begins.
func runRestore(args []string) error {
	fs := flag.NewFlagSet("strata restore", flag.ContinueOnError)
	logBin := fs.String("log-bin", "binlog", "the binary log's base name on the server backed up")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("restore: usage: strata restore [--log-bin NAME] DIR")
	}
	dir := fs.Arg(0)
	if _, err := os.Stat(filepath.Join(dir, "backup.json")); err != nil {
		return fmt.Errorf("restore: %s is not a backup (no backup.json): %w", dir, err)
	}
	db, err := engine.Open(engine.Options{Dir: dir, BufferPoolBytes: 128 << 20})
	if err != nil {
		return fmt.Errorf("restore: recovery of %s: %w", dir, err)
	}
	file, pos, gtids, hasLog, err := binlog.Inspect(db, *logBin)
	if err != nil {
		db.Close()
		return err
	}
	replayed := db.Stats().RecoveredRecords
	if err := db.Close(); err != nil {
		return err
	}
	out := map[string]any{"prepared": true, "recovered_records": replayed}
	if hasLog {
		out["binlog_file"], out["binlog_position"], out["executed_gtid_set"] = file, pos, gtids
		fmt.Printf("prepared %s (%d redo records replayed); binary log position %s:%d, GTIDs %s\n", dir, replayed, file, pos, gtids)
	} else {
		fmt.Printf("prepared %s (%d redo records replayed); no binary log\n", dir, replayed)
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	return os.WriteFile(filepath.Join(dir, "restore.json"), append(b, '\n'), 0o644)
}
