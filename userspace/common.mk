# Shared build rules for the userspace tools: each tool lives in its own
# directory with a Makefile that sets PROG, SRCS (and optionally LDLIBS,
# TEST_PROG/TEST_SRCS for host unit tests, LIB) and includes this file.
# LIB names modules of the code the tools share, ../lib/<name>.{c,h}
# (e.g. LIB := loopback): they are compiled into PROG, and ../lib is on the
# include path.  PROG is built twice: $(OUT)/PROG with CFLAGS (-O2), and
# $(OUT)/san/PROG with SAN_FLAGS (ASan + UBSan, any report fatal) for the
# guest test that runs the tools under the sanitizers
# (tests/guest/52-userspace-sanitizers.sh).
OUT ?= $(CURDIR)/../../build/bin
CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_OUT := $(OUT)/san
LDLIBS ?=
LIB ?=
# counters reads hw counters over nldev: a tool with counters gets nldev too.
LIB := $(LIB) $(if $(filter counters,$(LIB)),$(filter-out $(LIB),nldev))
LIB_SRCS := $(LIB:%=../lib/%.c)
LIB_HDRS := $(wildcard ../lib/*.h)
CFLAGS += -I../lib

.PHONY: all test clean

# (A directory without PROG, ../lib, only has unit tests.)
ifneq ($(PROG),)
all: $(OUT)/$(PROG) $(SAN_OUT)/$(PROG)

$(OUT)/$(PROG): $(SRCS) $(LIB_SRCS) $(wildcard *.h) $(LIB_HDRS) Makefile ../common.mk
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -o $@ $(SRCS) $(LIB_SRCS) $(LDLIBS) -pthread

$(SAN_OUT)/$(PROG): $(SRCS) $(LIB_SRCS) $(wildcard *.h) $(LIB_HDRS) Makefile ../common.mk
	@mkdir -p $(SAN_OUT)
	$(CC) $(filter-out -O2,$(CFLAGS)) $(SAN_FLAGS) -o $@ $(SRCS) $(LIB_SRCS) $(LDLIBS) -pthread
else
all:
	@true
endif

# Host unit tests under ASan/UBSan (no RDMA device needed).
ifneq ($(TEST_SRCS),)
test: $(OUT)/$(TEST_PROG)
	$(OUT)/$(TEST_PROG)

$(OUT)/$(TEST_PROG): $(TEST_SRCS) $(wildcard *.h) $(LIB_HDRS) Makefile ../common.mk
	@mkdir -p $(OUT)
	$(CC) $(filter-out -O2,$(CFLAGS)) $(SAN_FLAGS) -o $@ $(TEST_SRCS) $(LDLIBS) -pthread
else
test:
	@true
endif

clean:
	rm -f $(if $(PROG),$(OUT)/$(PROG) $(SAN_OUT)/$(PROG)) $(if $(TEST_PROG),$(OUT)/$(TEST_PROG))
