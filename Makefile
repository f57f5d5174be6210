# sparkplan — see README.md.  `make run` and `make check` are all a newcomer needs.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Werror
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 -Iinclude
PREFIX  ?= /usr/local
BINDIR   = $(PREFIX)/bin
MANDIR   = $(PREFIX)/share/man/man1
DATADIR  = $(PREFIX)/share/sparkplan
VERSION  = 0.1.0
SAMPLE  ?= samples/join-formatted.txt

PKG      = pkg-config
# ncursesw.pc adds -D_XOPEN_SOURCE=600; ours (700) already covers it.
UI_CFLAGS   = $(filter-out -D_XOPEN_SOURCE=% -D_DEFAULT_SOURCE,$(shell $(PKG) --cflags ncursesw termkey 2>/dev/null)) -D_DEFAULT_SOURCE
UI_LIBS     = $(shell $(PKG) --libs ncursesw termkey 2>/dev/null)
CHECK_CFLAGS = $(shell $(PKG) --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell $(PKG) --libs check 2>/dev/null)

CORE_SRC = $(sort $(wildcard src/core/*.c))
UI_SRC   = $(sort $(wildcard src/ui/*.c))
TEST_SRC = $(sort $(wildcard tests/check_*.c))

B        = build
CORE_OBJ = $(CORE_SRC:src/core/%.c=$(B)/core/%.o)
UI_OBJ   = $(UI_SRC:src/ui/%.c=$(B)/ui/%.o)
TEST_OBJ = $(TEST_SRC:tests/%.c=$(B)/tests/%.o)

SAN      = build-asan
SANFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_CORE_OBJ = $(CORE_SRC:src/core/%.c=$(SAN)/core/%.o)
SAN_TEST_OBJ = $(TEST_SRC:tests/%.c=$(SAN)/tests/%.o)

DEFS = -DSPARKPLAN_VERSION='"$(VERSION)"' -DSPARKPLAN_DATADIR='"$(DATADIR)"'

.PHONY: all deps run check check-unit check-asan install uninstall clean bench fuzz man
all: sparkplan

# ---- the program --------------------------------------------------------------------
# The core library never links curses: the test runner links it alone, so a curses call
# in src/core fails to link.
$(B)/libsparkplan-core.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/core/%.o: src/core/%.c $(wildcard include/sparkplan/*.h) | $(B)/core
	$(CC) $(WARN) $(CPPFLAGS) $(DEFS) $(CFLAGS) -c -o $@ $<

$(B)/ui/%.o: src/ui/%.c $(wildcard include/sparkplan/*.h) | $(B)/ui
	$(CC) $(WARN) $(CPPFLAGS) $(DEFS) $(UI_CFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/main.o: src/main.c $(wildcard include/sparkplan/*.h) | $(B)
	$(CC) $(WARN) $(CPPFLAGS) $(DEFS) $(UI_CFLAGS) $(CFLAGS) -c -o $@ $<

sparkplan: $(B)/main.o $(UI_OBJ) $(B)/libsparkplan-core.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(B)/main.o $(UI_OBJ) $(B)/libsparkplan-core.a $(UI_LIBS) -lm

$(B) $(B)/core $(B)/ui $(B)/tests $(SAN)/core $(SAN)/tests:
	@mkdir -p $@

# ---- set-up -------------------------------------------------------------------------
deps:
	@sh scripts/deps.sh

run: deps
	@$(MAKE) --no-print-directory sparkplan
	./sparkplan $(SAMPLE)

# ---- tests --------------------------------------------------------------------------
# Every tests/check_*.c defines `Suite *NAME_suite(void)`; the runner's list is generated.
$(B)/suites.inc: $(TEST_SRC) | $(B)
	@grep -ho '^Suite \*[a-z0-9_]*_suite(void)' $(TEST_SRC) /dev/null \
	  | sed 's/^Suite \*\([a-z0-9_]*\)_suite(void)/SUITE(\1)/' > $@.tmp && mv $@.tmp $@

$(B)/tests/%.o: tests/%.c $(wildcard include/sparkplan/*.h) tests/testutil.h | $(B)/tests
	$(CC) $(WARN) $(CPPFLAGS) $(DEFS) $(CHECK_CFLAGS) $(CFLAGS) -Itests -c -o $@ $<

$(B)/runner.o: tests/runner.c $(B)/suites.inc | $(B)
	$(CC) $(WARN) $(CPPFLAGS) $(CHECK_CFLAGS) $(CFLAGS) -I$(B) -Itests -c -o $@ $<

$(B)/check-runner: $(B)/runner.o $(TEST_OBJ) $(B)/libsparkplan-core.a
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) -lm

$(SAN)/core/%.o: src/core/%.c $(wildcard include/sparkplan/*.h) | $(SAN)/core
	$(CC) $(WARN) $(CPPFLAGS) $(DEFS) $(SANFLAGS) -c -o $@ $<

$(SAN)/tests/%.o: tests/%.c $(wildcard include/sparkplan/*.h) tests/testutil.h | $(SAN)/tests
	$(CC) $(WARN) $(CPPFLAGS) $(DEFS) $(CHECK_CFLAGS) $(SANFLAGS) -Itests -c -o $@ $<

$(SAN)/check-runner: tests/runner.c $(B)/suites.inc $(SAN_TEST_OBJ) $(SAN_CORE_OBJ)
	$(CC) $(WARN) $(CPPFLAGS) $(CHECK_CFLAGS) $(SANFLAGS) -I$(B) -Itests -o $@ \
	  tests/runner.c $(SAN_TEST_OBJ) $(SAN_CORE_OBJ) $(CHECK_LIBS) -lm

# Check's per-test timeout is 4 s by default; corpus passes under ASan need more.
TEST_ENV = CK_DEFAULT_TIMEOUT=600 SPARKPLAN_BIN=$(CURDIR)/sparkplan

check: deps
	@$(MAKE) --no-print-directory sparkplan $(B)/check-runner $(SAN)/check-runner
	@$(MAKE) --no-print-directory check-unit check-asan

check-unit: sparkplan $(B)/check-runner
	@echo "== unit, golden, corpus and terminal tests =="
	$(TEST_ENV) ./$(B)/check-runner

check-asan: sparkplan $(SAN)/check-runner
	@echo "== the same tests built with AddressSanitizer + UndefinedBehaviorSanitizer =="
	$(TEST_ENV) SPARKPLAN_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1 ./$(SAN)/check-runner

# ---- the man page's KEYS section comes from the key table (src/core/keys.c) --------------
$(B)/keys-man: tools/keys-man.c $(B)/libsparkplan-core.a $(wildcard include/sparkplan/*.h)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) -o $@ tools/keys-man.c $(B)/libsparkplan-core.a

man: $(B)/keys-man
	./$(B)/keys-man man/sparkplan.1

# ---- install ------------------------------------------------------------------------
install: sparkplan
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DATADIR)/samples
	install -m 755 sparkplan $(DESTDIR)$(BINDIR)/sparkplan
	install -m 644 man/sparkplan.1 $(DESTDIR)$(MANDIR)/sparkplan.1
	install -m 644 samples/* $(DESTDIR)$(DATADIR)/samples/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sparkplan $(DESTDIR)$(MANDIR)/sparkplan.1
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf $(B) $(SAN) sparkplan
