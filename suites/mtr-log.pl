#!/usr/bin/perl
# suites/mtr-log.pl: read what mariadb-test printed for one case and say why it
# failed. Core Perl only (perl-base).
#
#   mtr-log.pl summary LOG RESULT [ACTUAL]
#       one line, tab separated: expected_lines missing_lines errors first_reason
#       expected_lines: lines of the .result file; missing_lines: how many of
#       them the run did not reproduce (from the diff mariadb-test printed, else
#       from a diff against ACTUAL, the output the run logged before it
#       stopped); errors: statements that failed or failed differently than the
#       .result expects; first_reason: the first of them, or the first result
#       difference, or why the case stopped or was skipped.
#   mtr-log.pl causes CASE LOG
#       one line per failed statement and per result-difference symptom:
#       CASE<TAB>kind<TAB>cause<TAB>statement   (cause normalised for grouping)
#   mtr-log.pl same LOG RESULT ACTUAL
#       exit 0 when the case failed only on the presentation differences
#       listed in docs/COMPATIBILITY.md ("Passing modulo presentation"): no
#       statement failed, and RESULT and ACTUAL are equal once both are
#       normalised by present() below.
use strict;
use warnings;

my $mode = shift @ARGV // '';

sub slurp {
	my ($f) = @_;
	open my $fh, '<:raw', $f or return '';
	local $/;
	my $s = <$fh>;
	return $s // '';
}

sub oneline {
	my ($s, $n) = @_;
	$s =~ s/[\t\r\n]+/ /g;
	$s =~ s/ {2,}/ /g;
	$s =~ s/^\s+|\s+$//g;
	$s = substr($s, 0, $n) . '...' if length($s) > $n;
	return $s;
}

# The unified diff mariadb-test printed, if any: (removed, added) line lists.
sub diff_lines {
	my ($log) = @_;
	my (@minus, @plus);
	my $in = 0;
	for my $l (split /\n/, $log) {
		if ($l =~ /^\+\+\+ /) { $in = 1; next }
		next unless $in;
		if ($l =~ /^-(.*)$/s) { push @minus, $1 }
		elsif ($l =~ /^\+(.*)$/s) { push @plus, $1 }
		elsif ($l !~ /^[ @\\]/) { $in = 0 }
	}
	return (\@minus, \@plus);
}

# The error reports, each as one string: "At line N: ..." up to the next one.
# In a diff they are '+' lines; without --continue-on-error, plain output.
sub errors {
	my ($log) = @_;
	my $text = $log;
	$text =~ s/^\+(?!\+\+ )//mg;
	my @e;
	while ($text =~ /^mysqltest: (.*?)(?=^mysqltest: |^The result from queries|^More results from|^Result (?:content|length) mismatch|^--- |^@@ |\z)/msg) {
		my $e = $1;
		# the diff's context lines after a multi-line error are not part of it
		$e =~ s/\n[ -][^\n]*(?:\n|$).*//s;
		push @e, $e;
	}
	return @e;
}

# cause: the error normalised for grouping (statement, positions, user table
# and column names dropped); kind: error, wrong-error, no-error, other.
sub classify {
	my ($e) = @_;
	my $inc = $e =~ /In included file "(?:\.\/|\S*\/mysql-test\/)?([^"]+)"/ ? "[$1] " : '';
	my ($kind, $cause, $stmt) = ('other', '', '');
	if ($e =~ /At line \d+: (query '.*?') failed with wrong errno (\S+) \((\d+)\): '(.*?)', instead of (\S+) \((\d+)\)/s) {
		($kind, $stmt) = ('wrong-error', $1);
		$cause = "got $2 ($3) " . norm($4) . "; expected $5 ($6)";
	} elsif ($e =~ /At line \d+: (query '.*?') succeeded - should have failed with (?:errno|error) (\S+) \((\d+)\)/s) {
		($kind, $stmt) = ('no-error', $1);
		$cause = "succeeded; expected $2 ($3)";
	} elsif ($e =~ /At line \d+: (query '.*?') failed: (\S+) \((\d+)\): (.*)/s) {
		($kind, $stmt) = ('error', $1);
		my ($name, $code, $msg) = ($2, $3, $4);
		# SET of a variable strata does not know reads as an unknown column:
		# keep the variable's name, it is the point
		my ($var) = $stmt =~ /^query 'SET\s+(?:SESSION\s+|GLOBAL\s+|@@)?(?:session\.|global\.)?(\w+)/i;
		if ($code == 1054 && defined $var && $msg =~ /^Unknown column '\Q$var\E'/i) {
			$cause = "$name ($code) Unknown column '$var' in 'field list' (SET of a system variable strata lacks)";
		} else {
			$cause = "$name ($code) " . norm($msg);
		}
	} elsif ($e =~ /At line \d+: (.*)/s) {
		$cause = norm($1);
	} else {
		$cause = norm($e);
	}
	return ($kind, oneline($inc . $cause, 200), oneline($stmt, 300));
}

sub norm {
	my ($m) = @_;
	$m =~ s/You have an error in your SQL syntax; //;
	$m =~ s/check the manual that corresponds to your MariaDB server version for the right syntax to use //;
	$m =~ s/at position \d+ //g;
	$m =~ s/ at line \d+//g;
	$m =~ s/ at row \d+/ at row N/g;
	$m =~ s/\[[^\]]*\]/[...]/g;
	$m =~ s/\b(table not found|database not found): \S+/$1: X/g;
	$m =~ s/column "[^"]*" could not be found/column "X" could not be found/g;
	$m =~ s/(Unknown column|Table|Duplicate entry|Data too long for column|column name|Column) '[^']*'/$1 'X'/g
		unless $m =~ /'(?:system_variables|global_variables|session_variables|global_status|session_status|\w*innodb\w*)'/i;
	$m =~ s/(for key|Unknown table) '[^']*'/$1 'X'/g;
	$m =~ s/`[^`]*`/`X`/g;
	$m =~ s/\b0x[0-9a-f]+\b/0x.../gi;
	$m =~ s/\n.*//s;
	return $m;
}

# Symptoms read off the removed (expected) lines of a result diff.
sub symptoms {
	my ($minus) = @_;
	my %s;
	for my $l (@$minus) {
		$s{'EXPLAIN output differs'} = 1 if $l =~ /^id\tselect_type\t/;
		$s{'SHOW CREATE TABLE text differs'} = 1 if $l =~ /^\) ENGINE=|^\S+\tCREATE TABLE `/;
		$s{'warnings/notes differ (Warning/Note rows)'} = 1 if $l =~ /^(?:Warning|Note|Error)\t\d+\t/;
		$s{'expected error text differs'} = 1 if $l =~ /^ERROR [0-9A-Z]{5}: /;
		$s{'affected/matched row info differs (affected rows, info)'} = 1 if $l =~ /^(?:affected rows|info): /;
	}
	return sort keys %s;
}

# present: a result text with the presentation differences strata keeps on
# purpose made equal (docs/COMPATIBILITY.md, "Passing modulo presentation"):
# P1 the storage engine a table reports (strata has one; MyISAM, Aria,
#    MEMORY and InnoDB tables are all strata's and say InnoDB);
# P2 integer display widths (int(11)), which MySQL 8.0.19+ no longer shows
#    (tinyint(1) included: both sides lose it);
# P3 a numeric column default written quoted (MySQL 8: DEFAULT '12';
#    MariaDB: DEFAULT 12);
# P4 EXPLAIN's rows (and EXPLAIN EXTENDED's Note 1003 rewritten query): the
#    plan of a different optimizer, in MySQL 8's column layout.
sub present {
	my ($text) = @_;
	my @out;
	my $explain = 0;
	for my $l (split /\n/, $text) {
		if ($l =~ /^id\tselect_type\ttable\t/) { $explain = 1; push @out, '<EXPLAIN>'; next }
		if ($explain) {
			next if $l =~ /^(?:\d+|NULL)\t[A-Z][A-Z ]*\t/;
			next if $l =~ /^Warnings:$/;
			next if $l =~ /^Note\t1003\t|^Warning\t0\tEXPLAIN Output is currently a placeholder/;
			$explain = 0;
		}
		$l =~ s/\bENGINE=\w+/ENGINE=*/g;
		$l =~ s/\b((?:tiny|small|medium|big)?int)\(\d+\)/$1/gi;
		$l =~ s/\bDEFAULT '(-?\d+(?:\.\d+)?)'/DEFAULT $1/g;
		push @out, $l;
	}
	return join("\n", @out);
}

if ($mode eq 'same') {
	my ($logf, $resf, $actf) = @ARGV;
	my $log = slurp($logf);
	exit 1 if errors($log) || !-f $actf || $log =~ /is not supported by this installation|^run\.sh: /m;
	exit(present(slurp($resf)) eq present(slurp($actf)) ? 0 : 1);
} elsif ($mode eq 'summary') {
	my ($logf, $resf, $actf) = @ARGV;
	my $log = slurp($logf);
	my $res = slurp($resf);
	my $exp = () = $res =~ /\n/g;
	my ($minus, $plus) = diff_lines($log);
	my $missing;
	if ($log =~ /is not supported by this installation/) {
		$missing = $exp; # skipped: nothing ran
	} elsif (@$minus || @$plus) {
		$missing = @$minus;
	} elsif ($log =~ /^mysqltest: |^run\.sh: /m && $actf && -f $actf) {
		# stopped before comparing: count the expected lines the partial
		# output has, in order (a longest common subsequence would be exact;
		# a greedy in-order match is close enough for a progress measure)
		my @a = split /\n/, slurp($actf);
		my @r = split /\n/, $res;
		my ($i, $found) = (0, 0);
		for my $l (@r) {
			my $j = $i;
			$j++ while $j < @a && $j < $i + 50 && $a[$j] ne $l;
			if ($j < @a && $a[$j] eq $l) { $found++; $i = $j + 1 }
		}
		$missing = @r - $found;
	} elsif ($log =~ /^mysqltest: |^run\.sh: /m) {
		$missing = $exp;
	} else {
		$missing = 0;
	}
	my @e = errors($log);
	my $reason = '';
	my ($panic) = $log =~ /^run\.sh: (strata panicked: .*)$/m;
	if ($panic) {
		my $stmt = '';
		for (@e) { my ($k, $c, $s) = classify($_); if ($c =~ /\(20(?:06|13)\)/) { $stmt = $s; last } }
		$reason = $panic . ($stmt ne '' ? " | $stmt" : '');
	} elsif (@e) {
		my ($kind, $cause, $stmt) = classify($e[0]);
		$reason = $cause . ($stmt ne '' ? " | $stmt" : '');
	} elsif ($log =~ /is not supported by this installation/) {
		my ($r) = $log =~ /^reason: (.*)$/m;
		my ($f) = $log =~ /^Detected in file (\S+)/m;
		$reason = 'skipped: ' . ($r // '?') . ($f ? " ($f)" : '');
	} elsif (@$minus || @$plus) {
		$reason = 'result differs: -' . ($minus->[0] // '') . ' +' . ($plus->[0] // '');
	} elsif ($log =~ /^(run\.sh: .*)$/m) {
		$reason = $1;
	} elsif ($log =~ /(\S.*)/) {
		$reason = $1;
	}
	my $nerr = grep { /query '.*' (?:failed|succeeded)/s && !/\(2006\)/ } @e;
	printf "%d\t%d\t%d\t%s\n", $exp, $missing, $nerr, oneline($reason, 400);
} elsif ($mode eq 'causes') {
	my ($case, $logf) = @ARGV;
	my $log = slurp($logf);
	for my $e (errors($log)) {
		my ($kind, $cause, $stmt) = classify($e);
		# after a lost connection every statement fails with "gone away"
		next if $cause =~ /\(2006\)/;
		print join("\t", $case, $kind, $cause, $stmt), "\n";
	}
	my ($minus) = diff_lines($log);
	print join("\t", $case, 'result', $_, ''), "\n" for symptoms($minus);
	print join("\t", $case, 'panic', oneline($1, 200), ''), "\n" while $log =~ /^run\.sh: (strata panicked: .*)$/mg;
} else {
	die "usage: mtr-log.pl summary LOG RESULT [ACTUAL] | causes CASE LOG | same LOG RESULT ACTUAL\n";
}
