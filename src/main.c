/*
 * main.c - find the command and run it; nothing else. Each command is a
 * descriptor in its own cmd_*.c, listed in cmd/commands.def, and run by the
 * driver (cli/driver.c), which returns the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "commands.h"
#include "gzsrc.h"
#include "sig.h"
#include "timeline.h"
#ifdef GS_HAVE_CUDA
#include "gpustat_cuda.h"
#endif

static void help(void)
{
	fputs("Usage: gpustat COMMAND [OPTION]... [FILE]...\n"
	      "Statistics of large binary or text streams at the speed they can be\n"
	      "read, on the GPU when there is one, with exact results everywhere.\n\n"
	      "Commands:\n", stdout);
	for (size_t i = 0; i < ncommands; i++)
		printf("  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\nFILEs are read in order as one stream; none or '-' is stdin.\n"
	      "Raw, .npy, PGM/PPM (binary or plain), zstd- and gzip-compressed input\n"
	      "are recognized, and decimal text (as seq, awk or a CSV has it;\n"
	      "--text) is read as numbers; formats it does not read (xz, PNG,\n"
	      ".npz ...) are refused.\n"
	      "'gpustat COMMAND --help' lists a command's options.\n\n"
	      "Examples:\n"
	      "  cat data.bin | gpustat hist\n"
	      "  gpustat scan < in.f32 > out.f32\n"
	      "  gpustat sum -t f64 big.f64.zst\n"
	      "  seq 1 100 | gpustat stats\n", stdout);
}

/* The compressed formats read, and the libraries that read them: one
 * line. */
static void decoders(void)
{
	printf("decoders: zstd (libzstd %s), gzip (%s)\n", ZSTD_versionString(),
	       gzsrc_version());
}

static void version(void)
{
	printf("gpustat %s\n", GS_VERSION);
	decoders();
#ifdef GS_HAVE_CUDA
	char buf[2048];

	cuda_describe(buf, sizeof(buf));
	printf("%s\n", buf);
#else
	printf("cuda: not built in\n");
#endif
}

/* As git does: "'stat' is not a command; did you mean 'stats'?" */
static int unknown_command(const char *word)
{
	const char *names[64];
	const char *near;

	for (size_t i = 0; i < ncommands; i++)
		names[i] = commands[i]->name;
	near = cli_nearest(word, strlen(word), names, ncommands);
	if (word[0] == '-')
		fprintf(stderr, "gpustat: unknown option '%s' before the command",
			word);
	else if (near)
		fprintf(stderr, "gpustat: '%s' is not a command; did you mean '%s'?",
			word, near);
	else
		fprintf(stderr, "gpustat: '%s' is not a command", word);
	fputs(" (try 'gpustat --help')\n", stderr);
	return 2;
}

static int run(int argc, char **argv)
{
	/* Die quietly on a closed pipe, like cat, even if our parent ignored
	 * SIGPIPE. */
	signal(SIGPIPE, SIG_DFL);
	sig_init();
	if (argc < 2) {
		fputs("gpustat: no command; usage: gpustat COMMAND [OPTION]... "
		      "[FILE]... (try 'gpustat --help')\n", stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		help();
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		version();
		return 0;
	}
	/* the tables, for the completion scripts (and the tests that check
	 * the man page and completions against them) */
	if (strcmp(argv[1], "--options") == 0) {
		command_dump_options(commands, ncommands, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--commands") == 0) {
		command_dump_commands(commands, ncommands, stdout);
		return 0;
	}
	for (size_t i = 0; i < ncommands; i++)
		if (strcmp(argv[1], commands[i]->name) == 0)
			return command_run(commands[i], argc - 1, argv + 1);
	return unknown_command(argv[1]);
}

/* A closed 0, 1 or 2 would go to the first file we open: "-" would read
 * another operand, a temporary -o file would pass for stdout, messages
 * would land in an output. Each is held by /dev/null opened the other way,
 * so that using it still fails (EBADF) as a closed descriptor would. */
static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int n = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);

		if (n >= 0 && n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
}

int main(int argc, char **argv)
{
	timeline_start();
	hold_std_fds();
	int rc = run(argc, argv);

	if (fflush(stdout) != 0 && rc == 0) {
		fprintf(stderr, "gpustat: stdout: write error: %s\n", strerror(errno));
		rc = 1;
	}
	sig_exit_cleanup();	/* a temporary -o file nobody finished */
	timeline_report(stderr);	/* -v: where the time went */
	/* _exit: a GPU that was still starting in the background (see
	 * backend_auto.c) must not hold the exit up in CUDA's exit handlers;
	 * every result is written and checked by now. */
	_exit(rc);
}
