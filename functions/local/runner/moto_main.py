"""The moto server as the tests and `npm run local` run it (see moto-server.ts).

Single-threaded on purpose: the threaded server lets two concurrent
conditional writes both succeed, which would hide the races we test.

Three changes to how moto 5 runs:

- It exits when its parent does (its stdin closes), so a crashed test run
  or `npm run local` leaves no server behind.
- It keeps no registry of every model object it ever made
  (`BaseModel.instances_tracked`, read only by moto's own data dump and S3):
  every item, and every copy of one, stayed in it forever, so a long run
  grew by gigabytes.
- A transaction backs up only what it touches. moto deep-copies the whole
  table, its stream of every record ever written included, once per item of
  a `TransactWriteItems`, before applying any: an append of 20 items on a
  table of a few thousand items copied it 20 times, and the time of every
  transaction grew with the table. The backup here is the table with its
  partitions copied shallowly and the transaction's own items copied deeply:
  what a rollback restores is the same, the items no transaction touched
  are shared (moto never changes an item it does not write), and the stream
  is shared, as a cancelled transaction's records already reach readers
  (the "phantom records" of the design notes: a wake-up, never data).

And one to what it answers, where moto departs from SQS:

- A FIFO queue's deduplication lasts its five minutes whatever happened to
  the first copy. moto compares a new message only with the messages still
  in the queue, so a copy sent after the first was received and deleted
  (the stream router's, a few seconds behind the fast path) was delivered
  again; SQS accepts it and does not deliver it ("Amazon SQS FIFO queue
  message deduplication ID", SQS developer guide). Per message group when
  the queue's DeduplicationScope is messageGroup (high throughput), as SQS
  scopes it.
"""

import copy
import os
import sys
import threading

from moto.core.common_models import BaseModel
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from moto.sqs.models import DEDUPLICATION_TIME_IN_SECONDS, Queue
from werkzeug.serving import run_simple


def exit_with_parent() -> None:
    sys.stdin.read()
    os._exit(0)


BaseModel.__new__ = staticmethod(lambda cls, *args, **kwargs: object.__new__(cls))


def touched_keys(transact_items, table: Table):
    """The (hash, range) keys of the table's items a transaction writes or checks."""
    for item in transact_items:
        _, op = next(iter(item.items()))
        if op.get("TableName") != table.name:
            continue
        attrs = op.get("Item") or op.get("Key") or {}
        if table.hash_key_attr not in attrs:
            continue
        hash_key = DynamoType(attrs[table.hash_key_attr])
        range_key = (
            DynamoType(attrs[table.range_key_attr])
            if table.range_key_attr is not None and table.range_key_attr in attrs
            else None
        )
        yield hash_key, range_key


def backup_of(table: Table, transact_items) -> Table:
    backup = copy.copy(table)
    if table.range_key_attr is None:
        backup.items = type(table.items)(table.items.default_factory, table.items)
        for hash_key, _ in touched_keys(transact_items, table):
            if hash_key in table.items:
                backup.items[hash_key] = copy.deepcopy(table.items[hash_key])
        return backup
    backup.items = type(table.items)(
        table.items.default_factory,
        {hash_key: dict(partition) for hash_key, partition in table.items.items()},
    )
    for hash_key, range_key in touched_keys(transact_items, table):
        partition = table.items.get(hash_key)
        if partition is not None and range_key in partition:
            backup.items[hash_key][range_key] = copy.deepcopy(partition[range_key])
    return backup


transact_write_items = DynamoDBBackend.transact_write_items


def transact_write_items_backing_up_what_it_touches(self, transact_items):
    deepcopy, backups = copy.deepcopy, {}

    def backup(value, memo=None):
        if not isinstance(value, Table):
            return deepcopy(value, memo)
        if id(value) not in backups:
            backups[id(value)] = backup_of(value, transact_items)
        return backups[id(value)]

    copy.deepcopy = backup
    try:
        return transact_write_items(self, transact_items)
    finally:
        copy.deepcopy = deepcopy
        # A rolled-back table is its backup now: its stream is still the table's.
        for table in self.tables.values():
            if table.stream_shard is not None:
                table.stream_shard.table = table


DynamoDBBackend.transact_write_items = transact_write_items_backing_up_what_it_touches

add_message = Queue.add_message


def add_message_deduplicated_for_five_minutes(self, message):
    if self.fifo_queue and (
        message.deduplication_id or self.attributes.get("ContentBasedDeduplication") == "true"
    ):
        scope = self.attributes.get("DeduplicationScope") == "messageGroup"
        key = (message.group_id if scope else None, message.deduplication_id)
        sent = self.__dict__.setdefault("_deduplication_sent", {})
        now = message.sent_timestamp
        first = sent.get(key)
        if first is not None and (now - first) / 1000 < DEDUPLICATION_TIME_IN_SECONDS:
            return
        if len(sent) > 10_000:
            for old_key, at in list(sent.items()):
                if (now - at) / 1000 >= DEDUPLICATION_TIME_IN_SECONDS:
                    del sent[old_key]
        sent[key] = now
        # moto's own check (against queued messages, whatever their group)
        # is this one's job now: hide the ID from it while the message is queued.
        deduplication_id, message.deduplication_id = message.deduplication_id, None
        try:
            add_message(self, message)
        finally:
            message.deduplication_id = deduplication_id
        return
    add_message(self, message)


Queue.add_message = add_message_deduplicated_for_five_minutes

if __name__ == "__main__":
    threading.Thread(target=exit_with_parent, daemon=True).start()
    run_simple(
        "127.0.0.1",
        int(sys.argv[1]),
        DomainDispatcherApplication(create_backend_app),
        threaded=False,
    )
