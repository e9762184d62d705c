"""Strata through PyMySQL and SQLAlchemy in their default modes (text
protocol, autocommit off), run by cmd/strata's TestPythonClients against
the real binary. STRATA_PORT names the server; the database `py` exists."""
import os

import pymysql
import pytest
import sqlalchemy

PORT = int(os.environ["STRATA_PORT"])


def connect(**kw):
    return pymysql.connect(host="127.0.0.1", port=PORT, user="root", database="py", **kw)


def test_handshake_says_autocommit_and_driver_turns_it_off():
    c = connect()
    # PyMySQL's default is autocommit off; it sends SET autocommit=0 only
    # when the handshake says autocommit is on.
    assert c.get_autocommit() is False
    cur = c.cursor()
    cur.execute("SELECT @@autocommit")
    assert cur.fetchone() == (0,)
    c.close()


def test_rollback_undoes_and_status_flags_follow():
    c = connect()
    cur = c.cursor()
    cur.execute("DROP TABLE IF EXISTS acct")
    cur.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal INT)")
    cur.execute("INSERT INTO acct VALUES (1, 100), (2, 100)")
    c.commit()
    cur.execute("UPDATE acct SET bal = bal - 10 WHERE id = 1")
    assert c.server_status & 0x0001, "SERVER_STATUS_IN_TRANS after a write with autocommit off"
    c.rollback()
    assert not c.server_status & 0x0001
    cur.execute("SELECT bal FROM acct ORDER BY id")
    assert cur.fetchall() == ((100,), (100,))
    c.autocommit(True)
    assert c.server_status & 0x0002, "SERVER_STATUS_AUTOCOMMIT"
    cur.execute("BEGIN")
    assert c.server_status & 0x0003 == 0x0003
    cur.execute("COMMIT")
    assert c.server_status & 0x0003 == 0x0002
    c.close()


def test_other_connection_does_not_see_uncommitted():
    a, b = connect(), connect()
    ca, cb = a.cursor(), b.cursor()
    ca.execute("DROP TABLE IF EXISTS vis")
    ca.execute("CREATE TABLE vis (id INT PRIMARY KEY)")
    a.commit()
    ca.execute("INSERT INTO vis VALUES (1)")
    cb.execute("SELECT COUNT(*) FROM vis")
    assert cb.fetchone() == (0,)
    b.commit()
    a.commit()
    cb.execute("SELECT COUNT(*) FROM vis")
    assert cb.fetchone() == (1,)
    a.close()
    b.close()


def test_odku_unique_secondary_key():
    c = connect()
    cur = c.cursor()
    cur.execute("DROP TABLE IF EXISTS u")
    cur.execute("CREATE TABLE u(id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50), email VARCHAR(100), UNIQUE KEY(email))")
    cur.execute("INSERT INTO u(name,email) VALUES('a','a@x')")
    cur.execute("INSERT INTO u(name,email) VALUES(%s,%s) ON DUPLICATE KEY UPDATE name='c'", ("b", "a@x"))
    c.commit()
    cur.execute("SELECT id, name, email FROM u")
    assert cur.fetchall() == ((1, "c", "a@x"),)
    c.close()


def test_error_codes_reach_the_driver():
    c = connect()
    cur = c.cursor()
    cur.execute("DROP TABLE IF EXISTS e")
    cur.execute("CREATE TABLE e (id INT PRIMARY KEY, s VARCHAR(3), tn TINYINT)")
    for code, q in [(1050, "CREATE TABLE e (id INT)"),
                    (1406, "INSERT INTO e VALUES (1, 'abcdef', 0)"),
                    (1264, "INSERT INTO e VALUES (1, 'a', 300)"),
                    (1062, None)]:
        if q is None:
            cur.execute("INSERT INTO e VALUES (1, 'a', 1)")
            q = "INSERT INTO e VALUES (1, 'b', 1)"
        with pytest.raises(pymysql.MySQLError) as ei:
            cur.execute(q)
        assert ei.value.args[0] == code, (q, ei.value.args)
    c.rollback()
    c.close()


def test_sqlalchemy_orm_style_schema_and_transaction():
    eng = sqlalchemy.create_engine(f"mysql+pymysql://root@127.0.0.1:{PORT}/py")
    md = sqlalchemy.MetaData()
    users = sqlalchemy.Table(
        "sa_users", md,
        sqlalchemy.Column("id", sqlalchemy.Integer, primary_key=True),
        sqlalchemy.Column("name", sqlalchemy.String(50), nullable=True, server_default=None),
        sqlalchemy.Column("created", sqlalchemy.DateTime, server_default=sqlalchemy.func.now()),
        sqlalchemy.Column("score", sqlalchemy.Integer, server_default=sqlalchemy.text("0")),
    )
    md.drop_all(eng)
    md.create_all(eng)
    with eng.begin() as conn:
        conn.execute(users.insert().values(name="x"))
    try:
        with eng.begin() as conn:
            conn.execute(users.insert().values(name="y"))
            raise RuntimeError("abort")
    except RuntimeError:
        pass
    with eng.connect() as conn:
        rows = conn.execute(sqlalchemy.select(users.c.name, users.c.score, users.c.created.isnot(None))).all()
    assert [tuple(r) for r in rows] == [("x", 0, True)]
    md.drop_all(eng)
