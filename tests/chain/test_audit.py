"""The audit log: one JSON line per call, refusals included, secrets redacted."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.chain.conftest import hs256_token, make_call, run_handler, tool
from toolbay.chain import build_chain
from toolbay.chain.audit import Audit, AuditLog
from toolbay.chain.authenticate import Authenticate, Authenticator
from toolbay.chain.call import ToolCall
from toolbay.errors import Unauthenticated
from toolbay.redaction import redact, redact_text
from toolbay.words import ToolResult

pytestmark = pytest.mark.anyio


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    return tmp_path / "logs" / "audit.jsonl"


async def test_a_successful_call_is_written_with_its_caller_outcome_and_timings(log_path: Path) -> None:
    from toolbay.auth import local_principal

    chain = build_chain([Audit(AuditLog(log_path)), Authenticate(Authenticator(local=local_principal([], "dev")))],
                        run_handler)
    await chain(make_call(tool(), {"text": "hi"}, transport="stdio"))
    (line,) = lines(log_path)
    assert {k: line[k] for k in ("caller", "caller_kind", "transport", "tool", "outcome", "arguments")} == {
        "caller": "dev", "caller_kind": "local", "transport": "stdio", "tool": "echo", "outcome": "ok",
        "arguments": {"text": "hi"}}
    assert set(line["stages_ms"]) == {"authenticate"}
    assert line["tool_ms"] >= 0 and line["total_ms"] >= line["tool_ms"]
    assert line["time"].endswith("+00:00")


async def test_a_refused_call_is_written_with_its_code_and_reason(log_path: Path) -> None:
    chain = build_chain([Audit(AuditLog(log_path)), Authenticate(Authenticator())], run_handler)
    with pytest.raises(Unauthenticated):
        await chain(make_call(tool()))
    (line,) = lines(log_path)
    assert line["outcome"] == "refused:unauthenticated"
    assert line["caller"] is None and line["tool_ms"] is None
    assert "no authentication configured" in line["reason"]


async def test_a_tool_error_and_a_crash_are_told_apart(log_path: Path) -> None:
    async def crash(call: ToolCall) -> ToolResult:
        raise RuntimeError("boom")

    audit = Audit(AuditLog(log_path))
    await audit(make_call(tool(fail=True)), run_handler)
    with pytest.raises(RuntimeError):
        await audit(make_call(tool()), crash)
    assert [line["outcome"] for line in lines(log_path)] == ["tool_error", "crashed"]


async def test_a_call_that_went_on_as_a_job_is_written_with_the_jobs_id(log_path: Path) -> None:
    # Audited "ok" with no id: the line could not be tied to the job, unlike /metrics' "job".
    async def becomes_a_job(call: ToolCall) -> ToolResult:
        return ToolResult(text="goes on as job job_1", structured={"job_id": "job_1", "status": "running"},
                          meta={"job_id": "job_1"})

    async def job_status(call: ToolCall) -> ToolResult:  # a job tool's answer names the job's tool
        return ToolResult(text="job_1 (echo) is running", structured={"job_id": "job_1", "tool": "echo"},
                          meta={"job_id": "job_1"})

    audit = Audit(AuditLog(log_path))
    await audit(make_call(tool()), becomes_a_job)
    await audit(make_call(tool()), job_status)
    first, second = lines(log_path)
    assert (first["outcome"], first["job_id"]) == ("job", "job_1")
    assert second["outcome"] == "ok" and "job_id" not in second


async def test_secret_arguments_are_redacted_in_the_log(log_path: Path) -> None:
    arguments = {"password": "hunter2", "apiKey": "k", "note": f"use {hs256_token()}",
                 "header": "Bearer abc.def", "digest": "ab" * 32, "keyboard": "qwerty",
                 "nested": [{"client_secret": "s"}]}
    await Audit(AuditLog(log_path))(make_call(tool(), arguments), run_handler)
    (line,) = lines(log_path)
    assert line["arguments"] == {
        "password": "[REDACTED]", "apiKey": "[REDACTED]", "note": "use [REDACTED]",
        "header": "[REDACTED]", "digest": "[REDACTED]", "keyboard": "qwerty",
        "nested": [{"client_secret": "[REDACTED]"}]}
    assert "hunter2" not in log_path.read_text()


async def test_a_token_used_as_an_argument_name_or_a_tool_name_is_redacted_in_the_log(log_path: Path) -> None:
    token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
    await Audit(AuditLog(log_path))(make_call(tool(), {token: 1, "path": "a.txt"}), run_handler)
    await Audit(AuditLog(log_path))(make_call(tool(name=f"nosuch_{token}")), run_handler)
    assert token not in log_path.read_text()
    first, second = lines(log_path)
    assert first["arguments"] == {"[REDACTED]": 1, "path": "a.txt"}
    assert second["tool"] == "nosuch_[REDACTED]"


def test_a_key_as_it_reads_is_hidden_and_the_text_around_it_kept_as_written() -> None:
    """A key in full-width letters, in mathematical bold, or split by an accent written apart
    reads as the key: each was logged and shown whole (an outside check). Around it the text
    stays as written: NFKC of the whole would turn CJK's "：" and "（" into ASCII, and join the
    accents written apart in other words."""
    assert redact({"note": "密钥（key）：ＡＫＩＡＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ，勿外传"}) \
        == {"note": "密钥（key）：[REDACTED]，勿外传"}
    assert redact_text("cafe\u0301 ghp_A1b2C3d4\u0301E5f6G7h8J9k0L1m2N3 re\u0301sume\u0301") \
        == "cafe\u0301 [REDACTED] re\u0301sume\u0301"
    bold = "\U0001d400\U0001d40a\U0001d408\U0001d400"  # "AKIA" in mathematical bold
    assert redact_text(bold + "ＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ in bold") == "[REDACTED] in bold"
    assert redact_text("ｐａｓｓｗｏｒｄ＝ｈｕｎｔｅｒ２ｘ と 日本語") \
        == "ｐａｓｓｗｏｒｄ＝[REDACTED] と 日本語"
    for kept in ("ｆｕｌｌ－ｗｉｄｔｈ ｔｅｘｔ：ＡＢＣ １２３", "Ｈ２Ｏ（水）", "x² + y² = r²",
                 "Ｗｉ－Ｆｉ ｐａｓｓ：ｏｆｆ"):
        assert redact_text(kept) == kept


def test_redaction_leaves_ordinary_values_alone() -> None:
    ordinary = {"path": "src/main.py", "count": 3, "author": "ann", "keys": ["a", "b"], "flag": None,
                "notes": ["runs npm-check-updates-for-everyone", "pk_column_name_of_the_table",
                          "mailto:ann@example.com", "https://example.com/a:b@c", "http://ann@host/",
                          "task-force-of-the-ministry", "password: the account's password",
                          "set token= in the file", "secretary=ann", "give --api-key=API_KEY or --token=TOKEN",
                          "password=$DB_PASSWORD", "secret={secret}", "tokens_file=/etc/toolbay/tokens",
                          "access=readonly", "private=true", "API_KEY=YOUR_API_KEY", '{"token_count": "12"}',
                          "secret_sauce=ketchup", "token: 32-byte hex string", "token: base64 encoded",
                          "--password PASSWORD", "-p, --password pass  the password", "--token string",
                          "max token: 4096", "passwd: ********", "--password {password}", "key: F5",
                          "https://example.com/secret:abc123", "token: <token>", "Token: utf-8 text",
                          "token：32-byte hex", "password： the user's password", "token: utf-8", "token: OAuth2",
                          "secret: SHA-256", "set token= in the file", "token: base64 encoded and signed",
                          # camelCase names and "pass" (below) that are no secret's, or whose value is none
                          "nextPageToken: the token for the next page", "--pageToken=TOKEN", "maxTokens=4096",
                          # a secret itself as a call's first argument, not a setting's name
                          "pbkdf2('secret', 'salt', 100000)", "scrypt('password', 'salt', 64)",
                          'os.environ.get("PASSWORD", "")', 'env["TOKEN"] = None',
                          'labels["password"] = "Enter your password"', 'config.set("section", "user", "ann")',
                          # labels and translations in code (a re-check: 0770a68a hid them)
                          'messages["password"] = "Mot de passe"', 'i18n.set("password", "Show password")',
                          'errors["password"] = "Passwords do not match"',
                          'keyring.set_password("system", "username", "password")',
                          'password = os.environ["PASSWORD"]',

                          "twoPass=true", "bypass=on", "compass=north7", "sortKey=name", "inputTokens: 1234567",
                          "--pass 2", "ffmpeg -pass 1 -b 2M", "<tokens>5</tokens>", "<Passport>12345678</Passport>",
                          "<description>The password to use</description>", "<password>${DB_PASSWORD}</password>",
                          "<token>PLACEHOLDER</token>", "<passwordHint>my dog</passwordHint>",
                          "Passwort: das Passwort des Benutzers", "密码：用户的密码", "mot de passe : le mot de passe",
                          "Kennwort: bitte eingeben", "Passwortlänge: 12", "口令：abc",
                          # "pass" ending names that hold none, a test's log line, markup, an HTML attribute
                          # (a re-check: each was hidden)
                          "PASS: test-foo1", "two_pass=1", "--two-pass=true", "render_pass = create_pass(device)",
                          "First pass: tokenize2 words", '<token id="1">Hello</token>', "<Token>Bearer</Token>",
                          '<a href="x.html" accesskey="n">Next</a>', "Passwort: 8-stellig",
                          '<add key="Title" value="Hello"/>', '<add key="ApiKey" value="${API_KEY}"/>',
                          # a comparison in code; nginx's proxy_pass; descriptions in their own language;
                          # -u as docker's user:group
                          "if (aliceSecret === bobSecret)", "proxy_pass: http://backend:8080",
                          "Contraseña: mín.8", "パスワード：半角英数字8文字以上", "docker run -u 1000:1000 img",
                          "Basic authentication is used", "user=alice&name=bob",
                          '<property name="url" value="http://x"/>', '<input type="password" name="pwd" value="">',
                          # quoted names that end before a quote of a value's, placeholders in
                          # quotes, a list under a secret's name that holds words
                          'add them to the "hosts:",\n"passwd:" and "group:" lines',
                          "the value of `password=`, `token=`, `api_key=`", 'API_KEY="YOUR API KEY"',
                          'token: "${API TOKEN}"', '"GrantToken": "<grant token here>"', "if password == 'a b':",
                          "tokens:\n  - the first\n  - see below\n",
                          # text between two quoted prompts, a path, names in code quotes, lists of
                          # names under "tokens" and "secrets", a workflow's placeholder (a re-check)
                          'The messages "Old password:" and "New password:" are printed to stderr.',
                          'raise ValueError("Invalid password: " + reason + " try again")',
                          'PWD: "/Users/me/Library/Application Support"', "`secret=`... and (`DB_PASS=`), x",
                          "Supported tokens:\n- cl100k_base\n- o200k_base\n- python3\n- v2.0.1\n- x86_64\n",
                          "secrets:\n  - AWS_S3_TOKEN\n  - DEPLOY_KEY\n",
                          "env:\n- name: TOKEN\n  value: ${{ secrets.TOKEN }}\n", "Pass `token=False` to send none",
                          "a placeholder (`--token=TOKEN`)",
                          # quoted words about the value, lists under plurals that name things
                          # (a second re-check: all hidden whole)
                          '{"reset_password": "Reset your password", "settings.api_key": "Enter your API key"}',
                          'def login(user, password: "str | None" = None)',
                          'Returns {"api_key": "the created key (shown once)"}',
                          "## Tokens:\n- gpt-4o-mini-2024-07-18\n- all-MiniLM-L6-v2\n",
                          "Secrets:\n  - docker-hub-token-v2\n  - aws-creds-2024\n",
                          "steps:\n  - run: make\n  - build2x9\n",
                          # "-p" alone asks for the password; other programs' "-p"; a placeholder
                          "mysql -h db -u root -p shop", "ssh -p 2222 host && mkdir -p out", "mysql -p$MYSQL_PWD",
                          "mysql -pPASSWORD db", "a SKU like SKU12",
                          "ssh://git@github.com/org/repo", "http://user@host:8080/a", "sshpass -p PASSWORD ssh h",
                          "gist://:TOKEN@<gist_id>/file.txt", "postgres://app:${DB_PASS}@db/x",
                          "redis://:<password>@cache:6379", "mysql://root:PASSWORD@localhost/shop",
                          "https://username:password@www.example.com/",
                          "docker login -u me r.io", "docker login -p $PW r.io", "mkdir -p out && redis-cli -a",
                          # other commands' -p and -a after these (a re-check: each was hidden)
                          "redis-cli -p 6380 --latency", "sshpass -e ssh -p 2222 host",
                          "sshpass -f pw rsync -e 'ssh -p 2222'", "docker login ghcr.io && docker run -p 8080:80 nginx",
                          "docker login first, then docker ps -a shows all", "redis-cli info | grep -a used_memory",
                          "sshpass -p password ssh h", "redis-cli -a yourpassword",
                          # prose about the options, placeholders quoted or in a URL (a second re-check)
                          "Like `sshpass -p`, this takes", "run docker login -p, then paste",
                          "redis-cli -a is insecure", "docker login -p is deprecated", 'sshpass -p "$SSHPASS" ssh h',
                          'sshpass -p "<password>" ssh h', "sshpass -p 'your password' ssh h",
                          "redis://:{{redis_password}}@host", "https://user:%s@host/", "postgres://u:%(password)s@h/db",
                          "https://x-access-token:${{secrets.GITHUB_TOKEN}}@github.com/o/r",
                          "postgres://u:${PASSWORD:-default}@h/db", "redis://:[password]@h",
                          "redis://:your-password@h", "redis://:Your_Password@h",
                          # more of them: "my" or "your" and the name of what goes there
                          "https://u:your_password_here@h", "mysql://root:my_db_password@h",
                          "https://u:yourPassword@h", "https://me:mytoken@h", "redis-cli -a my-redis-password",
                          "aws s3 cp s3://bucket/ServerProtocolDisclosure2/abcdefg .",
                          "the call at 12:30 lasted 1234567890:00 in all",
                          "the pypi-simple-index-mirror-and-cache-for-offline-builds-of-wheels-v2 project"]}
    assert redact(ordinary) == ordinary


@pytest.mark.parametrize(("text", "shown"), [
    ("key sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "key [REDACTED]"),  # Stripe's keys use "_"
    # A hex run joined to a prefix by "_", and more services' token shapes (an outside check:
    # each was listed and found by search for its value).
    ("token dop_v1_" + "bcc4b9db165c23115661ffb0df9daee36452bcf48385971f1bba10ef43a9e751 here",
     "token dop_v1_[REDACTED] here"),
    ("use key_" + "0123456789abcdef0123456789abcdef", "use key_[REDACTED]"),
    ("hf_" + "HbIUyd2j88BRYoVhf6QF0niSNyw1psv7NT", "[REDACTED]"),  # Hugging Face
    ("pypi-" + "AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlsz", "[REDACTED]"),
    ("SG." + "dh1hoNP08hT5isT6CjlNlA.ZkeNncJgQyVerdKKhVz4NiaBfuRMFFw8Px6diSsjKOR", "[REDACTED]"),  # SendGrid
    ("SK" + "0123456789abcdef0123456789abcdef", "[REDACTED]"),  # Twilio
    ("AccountName=foo;AccountKey=" + "mTbKoQfNz6TxRtlDxseUTDkXplRn8cPMBUraDdCXRA==;EndpointSuffix=core.windows.net",
     "AccountName=foo;AccountKey=[REDACTED];EndpointSuffix=core.windows.net"),  # Azure's connection strings
    ("mysql -uroot -p" + "S3cretPw9 shop", "mysql -uroot -p[REDACTED] shop"),
    ("mysqldump -h db --single-transaction -p" + "Hunter2x9 shop",
     "mysqldump -h db --single-transaction -p[REDACTED] shop"),
    # Quoted, digits alone, MariaDB's clients (a re-check: each was shown).
    ("mysql -uroot -p'" + "S3cret Pw' db", "mysql -uroot -p'[REDACTED]' db"),
    ('mysql -uroot -p"' + 'S3cretPw" db', 'mysql -uroot -p"[REDACTED]" db'),
    ("mysqladmin -p" + "123456 status", "mysqladmin -p[REDACTED] status"),
    ("mariadb-dump -uroot -p" + "S3cretPw db", "mariadb-dump -uroot -p[REDACTED] db"),
    ("whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "[REDACTED]"),  # Stripe's webhook secrets
    ("ya29." + "a0AfH6SMBx3kQz9L0pW2vR7nYtE", "[REDACTED]"),  # Google's OAuth access tokens
    ("rk_test_" + "51Habcdefghijklmnopqrstu.", "[REDACTED]."),
    ("AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "[REDACTED]"),  # Google's API keys
    ("npm_" + "abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]"),
    ("MY_ghp_" + "A" * 36, "MY_[REDACTED]"),  # a prefix glued to a name before it
    ("MY_AKIA" + "ABCDEFGHIJKLMNOP", "MY_[REDACTED]"),
    ("postgres://admin:" + "Hunter2Pa55word@db.internal:5432/prod", "postgres://admin:[REDACTED]@db.internal:5432/prod"),
    # A URL's password with no user, one holding "@", a token given as the user (an outside check)
    ("Cache at redis://:" + "Rds9Pass77x@cache.internal:6379/0", "Cache at redis://:[REDACTED]@cache.internal:6379/0"),
    ("postgres://u:" + "p@ssW0rd9@db/x", "postgres://u:[REDACTED]@db/x"),
    # Letters alone after "my" or "your" that name no placeholder's word (an outside check: shown)
    ("postgres://admin:" + "mysecretpass@db", "postgres://admin:[REDACTED]@db"),
    ("https://u:" + "yourdogsname@h/x", "https://u:[REDACTED]@h/x"),
    ("sshpass -p " + "mysecretpass ssh h", "sshpass -p [REDACTED] ssh h"),
    ("redis-cli -a " + "yourhorsebattery ping", "redis-cli -a [REDACTED] ping"),
    ("git clone https://" + "Vx3kP9qLm2Rt8YwZ0aBcD4eF6gH1@github.com/org/repo",
     "git clone https://[REDACTED]@github.com/org/repo"),
    ("bot " + "1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1 here", "bot [REDACTED] here"),  # Telegram's
    ("dapi" + "0123456789abcdef0123456789abcdef-2", "[REDACTED]"),  # Databricks'
    ("AKIA" + "IOSFODNN7EXAMPLF with " + "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLFKEY", "[REDACTED] with [REDACTED]"),
    ("sshpass -p " + "S3cretPw ssh host", "sshpass -p [REDACTED] ssh host"),
    ("sshpass -f ~/.pw -p" + "S3cretPw ssh host", "sshpass -f ~/.pw -p[REDACTED] ssh host"),
    ("docker login -u me -p " + "Hunter2x registry.io", "docker login -u me -p [REDACTED] registry.io"),
    ("docker login registry.io -u me -p" + "Hunter2x", "docker login registry.io -u me -p[REDACTED]"),
    ("docker login --password " + "'Hunter 2x' r.io", "docker login --password '[REDACTED]' r.io"),
    ("redis-cli -h cache -a " + "S3cr3tpw ping", "redis-cli -h cache -a [REDACTED] ping"),
    # redis-cli's -p is its port (a re-check: the port was hidden, the password after -a shown)
    ("redis-cli -h cache.internal -p 6379 -a " + "Qm7rT2vX9kLp ping",
     "redis-cli -h cache.internal -p 6379 -a [REDACTED] ping"),
    # quoted values of the options before it; redis-cli's options after its arguments (a second re-check)
    ("docker login -u 'me' -p " + "'Hunter2x' registry.io", "docker login -u 'me' -p '[REDACTED]' registry.io"),
    ("sshpass -p " + "'!Secret9' ssh host", "sshpass -p '[REDACTED]' ssh host"),  # a password that starts with a sign
    ("docker login -p " + "@Pw9x r.io", "docker login -p [REDACTED] r.io"),
    ('redis-cli -h "$REDIS_HOST" -a ' + "Qm7rT2vX9kLp ping", 'redis-cli -h "$REDIS_HOST" -a [REDACTED] ping'),
    ("redis-cli --cluster create 127.0.0.1:7000 127.0.0.1:7001 --cluster-replicas 1 -a " + "Qm7rT2vX9kLp",
     "redis-cli --cluster create 127.0.0.1:7000 127.0.0.1:7001 --cluster-replicas 1 -a [REDACTED]"),
    ("https://api.telegram.org/bot" + "7123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0/sendMessage",
     "https://api.telegram.org/bot[REDACTED]/sendMessage"),
    ("connect with password=" + "Tr0ub4dor&3 as ops", "connect with password=[REDACTED] as ops"),
    ("DB_PASSWORD = " + "hunter2, then API_KEY=" + "abc123", "DB_PASSWORD = [REDACTED], then API_KEY=[REDACTED]"),
    ("root token hvs." + "CAESIJ0abcdefghijklmnopqrstuv", "root token [REDACTED]"),  # Vault's tokens
    # Names ending in a secret's after other words, and passwords in capitals with a digit.
    ("AWS_SECRET_ACCESS_KEY=" + "wJalrXUtnFEMIK7MDENG, password=" + "HUNTER2SECRETPW",
     "AWS_SECRET_ACCESS_KEY=[REDACTED], password=[REDACTED]"),
    ("STRIPE_SECRET_KEY=" + "abc123 PRIVATE_KEY=" + "x9 access_key=" + "k7", "STRIPE_SECRET_KEY=[REDACTED] "
     "PRIVATE_KEY=[REDACTED] access_key=[REDACTED]"),
    ("token=" + "ABCD1234EFGH5678", "token=[REDACTED]"),
    ('{"api_key": "' + 'zzsecretvalue123456"}', '{"api_key": "[REDACTED]"}'),  # JSON written into a text
    # A secret said after its name and ":", or given to an option named so: the value when it mixes
    # letters with digits or symbols ("hunter2" only where its clause ends: "token: base64 encoded").
    ("password: " + "hunter2", "password: [REDACTED]"),
    ("DB password: " + "x9y8z7w6, user: ann", "DB password: [REDACTED], user: ann"),
    ("Password: " + "Tr0ub4dor&3 for ops", "Password: [REDACTED] for ops"),
    ('secret: "' + 's3cr3tValue99" and more', 'secret: "[REDACTED]" and more'),
    ("set the token:" + "abc123.", "set the token:[REDACTED]."),
    ("log in with --password " + "hunter2x9 first", "log in with --password [REDACTED] first"),
    ("-k, --api-key " + "sk9d8f7g6h5j", "-k, --api-key [REDACTED]"),
    # As CJK text writes them: full-width ":" and "=", and a no-break space after the colon.
    ("ログイン password：" + "hunter2x です", "ログイン password：[REDACTED] です"),
    ("token：" + "ghq9x8w7v6。次に", "token：[REDACTED]。次に"),
    ("password＝" + "hunter2x", "password＝[REDACTED]"),
    ("password:\u00a0" + "hunter2x", "password:\u00a0[REDACTED]"),
    # Quoted after "=", "=" then a space, a name of two words, a space before the colon, and a
    # password's value mid-sentence (an outside re-check: each was listed and found by search).
    ('Connect with token="' + 'zq12xw34" to the API.', 'Connect with token="[REDACTED]" to the API.'),
    ("export API_KEY='" + "vb56nm78'", "export API_KEY='[REDACTED]'"),
    ("password= " + "ab12cd34", "password= [REDACTED]"),
    ("API key: " + "ab12cd34", "API key: [REDACTED]"),
    ("password : " + "ab12cd34", "password : [REDACTED]"),
    ("Log in with password: " + "hunter2 please.", "Log in with password: [REDACTED] please."),
    ("secret: " + "Summer2024 for admin", "secret: [REDACTED] for admin"),
    # YAML's value on the next line, indented under its name (an outside check: shown, found).
    ("Settings:\n  user: sales\n  password:\n    " + "Xk29vQpL7m\n",
     "Settings:\n  user: sales\n  password:\n    [REDACTED]\n"),
    ("Password:\n  The user's password\n", "Password:\n  The user's password\n"),
    ("db_password: |\n    " + "Xk29vQpL7m\n", "db_password: |\n    [REDACTED]\n"),
    # ... and the key a line under its parent's is read for itself (the parent took it as its value)
    ("database:\n  password: " + "Xk29vQpL7m", "database:\n  password: [REDACTED]"),
    ("database:\n  password:\n    " + "Xk29vQpL7m", "database:\n  password:\n    [REDACTED]"),
    ("Options:\n  --password: " + "hunter22x", "Options:\n  --password: [REDACTED]"),
    # A line ending in a name that is no secret's ("Usage:") does not take the next line's first
    # word as its value: the secret's name there is read for itself (a re-check's leaks)
    ("Usage:\n  --password " + "Xk29vQpL7m", "Usage:\n  --password [REDACTED]"),
    ("command:\n  --api-key " + "a1b2c3d4e5f6 --verbose", "command:\n  --api-key [REDACTED] --verbose"),
    ("Credentials:\n  API key: " + "Xk29vQpL7m", "Credentials:\n  API key: [REDACTED]"),
    ("db:\n  password : " + "Xk29vQpL7m", "db:\n  password : [REDACTED]"),
    ("db:\n  password:" + "hunter2x9", "db:\n  password:[REDACTED]"),
    ("db:\n  password：" + "Xk29vQpL7m", "db:\n  password：[REDACTED]"),
    ("run: |\n  --password " + "Xk29vQpL7m", "run: |\n  --password [REDACTED]"),
    ("password: >-\n  " + "Xk29vQpL7m", "password: >-\n  [REDACTED]"),
    # camelCase names, as JSON and JavaScript write them (an outside check: kept whole), "pass"
    # ending a name, XML elements, and a YAML list's first item
    ("dbPassword=" + "hunter2x", "dbPassword=[REDACTED]"),
    ("clientSecret=" + "abc123def", "clientSecret=[REDACTED]"),
    ('{"githubAPIToken": "' + 'q1w2e3r4t5"}', '{"githubAPIToken": "[REDACTED]"}'),
    ("mysqlPassword: " + "Xk29vQpL7m", "mysqlPassword: [REDACTED]"),
    ("secretAccessKey: " + "wJalrXUtnFEMI/K7MDENG", "secretAccessKey: [REDACTED]"),
    ("DB_PASS=" + "hunter2x and SMTP_PASS: " + "Xk29vQpL7m", "DB_PASS=[REDACTED] and SMTP_PASS: [REDACTED]"),
    ("PGPASSWORD=" + "Xk29vQpL7m SSHPASS=" + "Xk29vQpL7m", "PGPASSWORD=[REDACTED] SSHPASS=[REDACTED]"),
    ('<add key="ApiKey" value="' + 'Xk29vQpL7m" />', '<add key="ApiKey" value="[REDACTED]" />'),
    ('<entry key="db.password">' + "Xk29vQpL7m</entry>", '<entry key="db.password">[REDACTED]</entry>'),
    ("password:\n- " + "Xk29vQpL7m", "password:\n- [REDACTED]"),
    ("Contraseña: " + "Xk29vQpL7m", "Contraseña: [REDACTED]"),
    ("Hasło: " + "Xk29vQpL7m", "Hasło: [REDACTED]"),
    # ... and values that look like code are values (a re-check: passwords leaked as "calls")
    ("password=" + "Tr0ub(4dor)", "password=[REDACTED]"),
    ("password=" + "Correct.Horse.Battery", "password=[REDACTED]"),
    ("<password>" + "hunter</password>", "<password>[REDACTED]</password>"),
    ("badge.svg?token=" + "m5ZQrMd3vk)](https://codecov.io/x)", "badge.svg?token=[REDACTED]"),
    # a secret's name after another setting's value in a query string, HTTP's Basic and Token
    # credentials, and curl's user:password
    ("https://api.example.com/v1?user=alice&password=" + "Xk29vQpL7m", "https://api.example.com/v1?user=alice&password=[REDACTED]"),
    ("Authorization: Basic " + "YWRtaW46cGFzcw==", "Authorization: Basic [REDACTED]"),
    ("headers Authorization=Basic " + "YWRtaW46cGFzcw==", "headers Authorization=Basic [REDACTED]"),
    ('-H "Authorization: Token ' + 'abcdef123456"', '-H "Authorization: Token [REDACTED]"'),
    ("curl -u admin:" + "Tr0ub4dor https://x", "curl -u admin:[REDACTED] https://x"),
    # a setting's attributes in either order, Spring's <property>, and CDATA
    ('<add value="' + 'correcthorse" key="DbPassword"/>', '<add value="[REDACTED]" key="DbPassword"/>'),
    ('<property name="password" value="' + "it's9secret\"/>", '<property name="password" value="[REDACTED]"/>'),
    ("<password><![CDATA[" + "Xk29vQpL7m]]></password>", "<password><![CDATA[[REDACTED]]]></password>"),
    ("<password>" + "hunter2x</password>", "<password>[REDACTED]</password>"),
    ('<db:apiKey type="x">' + "a1b2c3d4e5f6</db:apiKey>", '<db:apiKey type="x">[REDACTED]</db:apiKey>'),
    ("<token>\n  " + "abcd1234efgh\n</token>", "<token>\n  [REDACTED]\n</token>"),
    ("secret:\n  - " + "Xk29vQpL7m\n", "secret:\n  - [REDACTED]\n"),
    # a quoted value with spaces in it, whole; a dotted setting's name; every item of a YAML list
    # (each was shown whole, or all but its first word, or its first item only)
    ('{"password": "' + 'correct horse battery"}', '{"password": "[REDACTED]"}'),
    ("password='" + "correct horse battery'", "password='[REDACTED]'"),
    ('DB_PASSWORD="' + 'my pass 99" ok', 'DB_PASSWORD="[REDACTED]" ok'),
    ('spring.datasource.password: "' + 'hunter 2"', 'spring.datasource.password: "[REDACTED]"'),
    ("spring.datasource.password: " + "hunter2x", "spring.datasource.password: [REDACTED]"),
    ("app.api_key = " + "sk-abc123def", "app.api_key = [REDACTED]"),
    ("passwords:\n  - " + "Xk29vQpL7m\n  - " + "hunter2x9\n", "passwords:\n  - [REDACTED]\n  - [REDACTED]\n"),
    ("api_token:\r\n  - '" + "Xk29vQpL7mN4bR8sT2'\r\n  - " + "q1w2e3r4t5y6u7i8o9",
     "api_token:\r\n  - '[REDACTED]'\r\n  - [REDACTED]"),
    # ... and (a re-check) a dotted name in quotes, escaped quotes, JSON inside a JSON string,
    # PHP's "=>", a long option's quoted value, a list's comments and quoted items, a
    # Kubernetes variable's value, and a code-quoted value keeps its closing quote
    ('"spring.datasource.password": "' + 'hunter2x9"', '"spring.datasource.password": "[REDACTED]"'),
    ('"password": "' + 'correct \\"horse\\" battery"', '"password": "[REDACTED]"'),
    ('{\\"data\\":{\\"password\\":\\"' + 'aHVudGVyMg==\\"}}', '{\\"data\\":{\\"password\\":\\"[REDACTED]\\"}}'),
    ("'password' => '" + "abc123x', 'secret' => '" + "xy zw'", "'password' => '[REDACTED]', 'secret' => '[REDACTED]'"),
    ('mysql --password "' + 'correct horse battery"', 'mysql --password "[REDACTED]"'),
    ("passwords:\n  - " + "a1b2c3x  # prod\n  - \"" + "correct horse\"\n  - " + "Summer-2024\n",
     "passwords:\n  - [REDACTED]  # prod\n  - \"[REDACTED]\"\n  - [REDACTED]\n"),
    ("env:\n  - name: DB_PASSWORD\n    value: \"" + 'correct horse"\n  - name: HOST\n    value: db.local',
     'env:\n  - name: DB_PASSWORD\n    value: "[REDACTED]"\n  - name: HOST\n    value: db.local'),
    ("token=`" + "xy zw qv`, next", "token=`[REDACTED]`, next"),
    ("use `password=" + "hunter2x` here", "use `password=[REDACTED]` here"),
    ('{"cmd": "PASSWORD=\\"' + 'x9y8z7\\" ./run"}', '{"cmd": "PASSWORD=\\"[REDACTED]\\" ./run"}'),
    # a secret's keyword argument inside another assignment's value, which hid it from the rule
    ('client = Client(api_key="' + 'sk-abcdef123456")', 'client = Client(api_key="[REDACTED]")'),
    ("x = f(y, password='" + "hunter2x', token=None)", "x = f(y, password='[REDACTED]', token=None)"),
    # a secret's name and its value in quotes: a subscript set, or a setter's two arguments
    ('os.environ["DB_PASSWORD"] = "' + 'hunter2x"', 'os.environ["DB_PASSWORD"] = "[REDACTED]"'),
    ("define('DB_PASSWORD', '" + "hunter2x');", "define('DB_PASSWORD', '[REDACTED]');"),
    ('System.setProperty("db.password", "' + 'hunter2x")', 'System.setProperty("db.password", "[REDACTED]")'),
    # ... with the other quote in it, configparser's section first, and keyring's third (a re-check)
    ("define('DB_PASSWORD', \"" + "it's-Secret9\");", "define('DB_PASSWORD', \"[REDACTED]\");"),
    ('config.set("database", "password", "' + 'Tr0ub4dor9")', 'config.set("database", "password", "[REDACTED]")'),
    ('std::env::set_var("DB_PASSWORD", "' + 'Tr0ub4dor9");', 'std::env::set_var("DB_PASSWORD", "[REDACTED]");'),
    ('os.environ.setdefault("API_KEY", "' + 'k9Xq2LmZ7")', 'os.environ.setdefault("API_KEY", "[REDACTED]")'),
    ('keyring.set_password("svc", "ann", "' + 'Tr0ub4dor9")', 'keyring.set_password("svc", "ann", "[REDACTED]")'),
    # a string's prefix: the prefix alone was hidden, the secret shown after it ('[REDACTED]"Tr0ub4dor9x"')
    ('password = r"' + 'Tr0ub4dor9x"', 'password = r"[REDACTED]"'),
    ('os.environ["API_KEY"] = b"' + 'k9Xq2LmZ7"', 'os.environ["API_KEY"] = b"[REDACTED]"'),
    # ... and a password said after its name in another language
    ("Das Passwort: " + "hunter2x bitte", "Das Passwort: [REDACTED] bitte"),
    ("mot de passe : " + "Tr0ub4dor&3", "mot de passe : [REDACTED]"),
    ("contraseña: " + "s3cr3tValue99", "contraseña: [REDACTED]"),
    ("用户密码：" + "Xk29vQpL7m。次に", "用户密码：[REDACTED]。次に"),
    ("管理者パスワード=" + "hunter2x", "管理者パスワード=[REDACTED]"),
    ("비밀번호: " + "Xk29vQpL7m", "비밀번호: [REDACTED]"),
    ("ПАРОЛЬ: " + "Qwerty123!", "ПАРОЛЬ: [REDACTED]"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + "IBAAKCAQEA\n-----END RSA PRIVATE KEY----- ok", "[REDACTED] ok"),
    # A quoted value of words the quoted rule reads as a description's ("a"): hidden to its
    # closing quote, not its first word alone (the rest was shown).
    ("password='a b c'", "password='[REDACTED]'"),
    ('login --user ann password="a big secret" now', 'login --user ann password="[REDACTED]" now'),
    ('{"env": "DB_PASSWORD=\\"a b c\\" more"}', '{"env": "DB_PASSWORD=\\"[REDACTED]\\" more"}'),
    # A URL whose path or query is its secret (an outside check: each was shown and searchable).
    ("posts to https://hooks.slack.com/services/" + "T0A1B2C3D/B4E5F6G7H/q8R9s0T1u2V3w4X5y6Z7a8B9 when done",
     "posts to https://hooks.slack.com/services/[REDACTED] when done"),
    ("https://discord.com/api/webhooks/123456789012345678/" + "Zk9PqW3xLm7RtY2vBn6CsD1fGh4JjKk8",
     "https://discord.com/api/webhooks/[REDACTED]"),
    ("calls https://maps.example.com/api?key=" + "Hq7Lm2Xw9Pz4Rt6Yv1 for tiles",
     "calls https://maps.example.com/api?key=[REDACTED] for tiles"),
    ("https://b.s3.amazonaws.com/x?X-Amz-Signature=" + "0123456789abcdef0123&v=2",
     "https://b.s3.amazonaws.com/x?X-Amz-Signature=[REDACTED]&v=2"),
    ("https://maps.example.com/api?key=YOUR_API_KEY", "https://maps.example.com/api?key=YOUR_API_KEY"),
    # ... and Discord's versioned URL; a key that is words is a page's (each a re-check)
    ("https://discord.com/api/v10/webhooks/123456789012345678/" + "Zk9PqW3xLm7RtY2vBn6CsD1fGh4JjKk8",
     "https://discord.com/api/v10/webhooks/[REDACTED]"),
    ("https://example.com/search?key=getting-started&page=2", "https://example.com/search?key=getting-started&page=2"),
    # ... written without its scheme or in capitals; a key of words and digits is a page's (a second re-check)
    ("hooks.slack.com/services/" + "T0A1B2C3D/B4E5F6G7H/q8R9s0T1u2V3w4X5y6Z7a8B9",
     "hooks.slack.com/services/[REDACTED]"),
    ("https://HOOKS.SLACK.COM/services/" + "T0A1B2C3D/B4E5F6G7H/q8R9s0T1u2V3w4X5y6Z7a8B9",
     "https://HOOKS.SLACK.COM/services/[REDACTED]"),
    ("see ?sig=" + "AbCd1234EfGh5678", "see ?sig=[REDACTED]"),
    ("https://img.example.com/a?key=thumbnail-200x200&key=page2section3",
     "https://img.example.com/a?key=thumbnail-200x200&key=page2section3"),
])
def test_common_credential_formats_are_hidden_in_text(text: str, shown: str) -> None:
    assert redact({"description": text}) == {"description": shown}


@pytest.mark.parametrize(("text", "shown"), [
    # A value going on past "," or ";" with no space: its end was shown (an outside check).
    ("Pass token=a1b2c3;d4e5f6 to the API", "Pass token=[REDACTED] to the API"),
    ("login with password=p@ss,word now", "login with password=[REDACTED] now"),
    ("password: p@ss,word", "password: [REDACTED]"),
    ("--api-key a1b2c3,d4e5f6", "--api-key [REDACTED]"),
    # A password's own "!" was shown after it, its last character.
    ("password: Tr0ub4dor&3!", "password: [REDACTED]"),
    ("password:\n  Tr0ub4dor&3!", "password:\n  [REDACTED]"),
    ("Passwort: Tr0ub4dor&3!.", "Passwort: [REDACTED]."),
    # What follows is another setting, or code: kept.
    ("Server=db;User Id=sa;Password=S3cr;et1;Trusted_Connection=no",
     "Server=db;User Id=sa;Password=[REDACTED];Trusted_Connection=no"),
    ("f(password=x9,user=ann)", "f(password=[REDACTED],user=ann)"),
    ("Password=abc;User Id=sa", "Password=[REDACTED];User Id=sa"),
    ("token: a1b2c3d4,host: db", "token: [REDACTED],host: db"),
    ("token=get_token();run()", "token=[REDACTED];run()"),
    ("password=hunter2, then log in", "password=[REDACTED], then log in"),
])
def test_a_value_is_hidden_to_its_end_past_a_comma_a_semicolon_or_its_own_exclamation_mark(
        text: str, shown: str) -> None:
    assert redact({"description": text}) == {"description": shown}


def test_a_chain_of_assignments_is_read_without_recursion() -> None:
    """Each value after a name that is no secret's was searched again by recursion: "a=" 1,000
    times (2 KB) raised RecursionError, and the audit line lost its arguments."""
    chain = "a=" * 20_000 + "password=" + "hunter2x"
    assert redact_text(chain) == "a=" * 20_000 + "password=[REDACTED]"


async def test_a_full_disk_is_reported_on_stderr_and_the_call_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    # /dev/full answers every write with ENOSPC, as a full disk does.
    sink = AuditLog(Path("/dev/full"))
    echo = tool()
    with caplog.at_level(logging.ERROR, logger="toolbay.chain.audit"):
        result = await Audit(sink)(make_call(echo), run_handler)
        await Audit(sink)(make_call(echo), run_handler)
    sink.close()
    assert not result.is_error and echo.calls == 2
    assert sink.failures == 2
    assert [r.message for r in caplog.records] == [
        "audit log /dev/full cannot be written ([Errno 28] No space left on device); 1 line(s) lost so far"]


async def test_concurrent_calls_write_whole_lines(log_path: Path) -> None:
    import anyio

    audit = Audit(AuditLog(log_path))
    async with anyio.create_task_group() as group:
        for n in range(50):
            group.start_soon(audit, make_call(tool(), {"text": "x" * 1000 + str(n)}), run_handler)
    assert sorted(line["arguments"]["text"][1000:] for line in lines(log_path)) == sorted(map(str, range(50)))


async def test_half_a_utf16_pair_in_a_call_is_written_escaped_and_the_call_goes_on(log_path: Path) -> None:
    """Python's JSON parser takes a lone "\\ud800"; UTF-8 cannot hold it, and the audit line's
    encoding raised: the call failed with an internal error and no line was written."""
    echo = tool()
    result = await Audit(AuditLog(log_path))(make_call(echo, {"text": "a\ud800b"}), run_handler)
    (line,) = lines(log_path)
    assert not result.is_error and echo.calls == 1
    assert line["arguments"] == {"text": "a\ud800b"} and line["outcome"] == "ok"


async def test_a_megabyte_tool_name_takes_a_short_line(log_path: Path) -> None:
    """Each refused call wrote the whole name the caller sent into the log: a few requests of a
    few megabytes each filled the disk, whatever the rate limit."""
    name = "x" * 1_000_000
    chain = build_chain([Audit(AuditLog(log_path)), Authenticate(Authenticator())], run_handler)
    with pytest.raises(Unauthenticated):
        await chain(make_call(tool(name)))
    (line,) = lines(log_path)
    assert log_path.stat().st_size < 2000
    # One run of letters: it goes whole (it could be a token cut in two), its length said.
    assert line["tool"] == "... (1000000 characters)"


async def test_arguments_nested_past_pythons_stack_are_written_down_to_a_depth_and_the_call_recorded(
    log_path: Path,
) -> None:
    # 5,000 levels (a caller in the process, or a parser that takes them): redacting them ran
    # past Python's stack, after the tool had run, and the call went unrecorded.
    deep: Any = "hunter2"
    for _ in range(5000):
        deep = {"password": deep, "list": [deep]} if isinstance(deep, str) else [deep]

    async def answers(call: ToolCall) -> ToolResult:
        return ToolResult(text="done")

    await Audit(AuditLog(log_path))(make_call(tool(), {"deep": deep, "note": "kept"}), answers)
    (line,) = lines(log_path)
    assert line["outcome"] == "ok" and line["arguments"]["note"] == "kept"
    written = line["arguments"]["deep"]
    for _ in range(63):
        written = written[0]
    assert written == "[nested deeper than 64 levels]"
    assert "hunter2" not in log_path.read_text()


async def test_megabytes_of_arguments_take_a_short_line_cut_between_words(log_path: Path) -> None:
    """Each call's whole arguments were redacted and written: a caller with no tool scope held
    the event loop for seconds with each refused call of 4 MB, and wrote 4 MB of log."""
    said = "password: hunter2 " * 220_000  # 3,960,000 characters
    many = [f"item {n}" for n in range(10_000)]
    chain = build_chain([Audit(AuditLog(log_path)), Authenticate(Authenticator())], run_handler)
    with pytest.raises(Unauthenticated):
        await chain(make_call(tool(), {"said": said, "many": many, "keys": {f"k{n}": n for n in range(500)}}))
    (line,) = lines(log_path)
    assert log_path.stat().st_size < 24_000
    written = line["arguments"]
    assert written["said"].endswith("... (3960000 characters)")
    assert written["said"].startswith("password: [REDACTED] password: [REDACTED]")
    assert "hunter" not in log_path.read_text()
    assert written["many"][:2] == ["item 0", "item 1"] and written["many"][-1] == "... (10000 items)"
    assert len(written["many"]) == 101 and len(written["keys"]) == 101 and written["keys"]["..."] == "(500 keys)"


async def test_a_cut_falls_between_words_so_that_no_part_of_a_secret_is_written(log_path: Path) -> None:
    # The limit falls inside the password: "password: hun" would no longer look like one.
    from toolbay.shortening import TEXT_CHARACTERS

    text = "x" * (TEXT_CHARACTERS - len("password: hun")) + " password: hunter2xyz and more words"
    await Audit(AuditLog(log_path))(make_call(tool(), {"text": text}), run_handler)
    (line,) = lines(log_path)
    assert "hun" not in line["arguments"]["text"]
    assert line["arguments"]["text"].endswith(f" password: ... ({len(text)} characters)")


async def test_many_long_strings_share_one_budget_and_a_long_reason_is_cut(log_path: Path) -> None:
    from toolbay.shortening import TOTAL_CHARACTERS

    arguments = {f"a{n}": "word " * 1_000 for n in range(50)}
    await Audit(AuditLog(log_path))(make_call(tool(), arguments), run_handler)

    async def refuses(call: ToolCall) -> ToolResult:
        raise Unauthenticated("no " * 1_000_000)

    with pytest.raises(Unauthenticated):
        await Audit(AuditLog(log_path))(make_call(tool()), refuses)
    first, second = lines(log_path)
    assert sum(len(value) for value in first["arguments"].values()) < TOTAL_CHARACTERS + 50 * 40
    assert first["arguments"]["a49"] == "... (5000 characters)"
    assert len(second["reason"]) < 2_100 and second["reason"].endswith("... (3000000 characters)")


@pytest.mark.parametrize("where", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
async def test_no_part_of_a_secret_is_written_wherever_the_cut_falls(log_path: Path, where: int) -> None:
    """The cut stepped back over letters and digits only: a cut after "Zq7:" in a key's value, or
    in a URL's password, wrote that much of the secret (re-check of this session's fix)."""
    from toolbay.shortening import TEXT_CHARACTERS

    for secret_text in ('{"api_key": "Zq7:wpX9vKe2"}', "postgres://app:Zq7:wpX9vKe2@db/prod"):
        start = secret_text.index("Zq7")
        text = "x " * ((TEXT_CHARACTERS - start - where) // 2) + "y" * ((TEXT_CHARACTERS - start - where) % 2) \
            + secret_text + " and the rest" * 10
        await Audit(AuditLog(log_path))(make_call(tool(), {"text": text}), run_handler)
    for line in lines(log_path):
        assert "Zq7" not in line["arguments"]["text"] and "wpX9" not in line["arguments"]["text"], line


async def test_a_long_key_that_names_a_secret_hides_its_value_though_the_key_is_cut(log_path: Path) -> None:
    key = "x" * 195 + "_password"
    await Audit(AuditLog(log_path))(make_call(tool(), {key: "hunter2pass", "k" * 300: "kept"}), run_handler)
    (line,) = lines(log_path)
    assert "hunter2pass" not in log_path.read_text()
    assert sorted(line["arguments"].values()) == ["[REDACTED]", "kept"]


async def test_a_credential_is_blotted_out_whether_or_not_its_string_is_cut(log_path: Path) -> None:
    from toolbay.shortening import TEXT_CHARACTERS

    credential = "open(sesame)-" + "q" * 300  # longer than the window a cut looks past
    audit = Audit(AuditLog(log_path), hidden=lambda: [credential])
    for before in (0, TEXT_CHARACTERS - 20, TEXT_CHARACTERS - 5):
        await audit(make_call(tool(), {"text": "a" * before + credential + " tail", "many": [0] * 300_000}),
                    run_handler)
    for line in lines(log_path):
        assert "sesame" not in json.dumps(line) and "qqqqqqqq" not in json.dumps(line)
        assert line["arguments"]["many"][-1] == "... (300000 items)"


JWT_LIKE = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIx" + "A" * 560 + ".sig1234abcd"  # hidden: shortens the text


@pytest.mark.parametrize("layout", ["a secret hidden before it", "a long quoted token", "credentials before it"])
async def test_a_secret_at_the_cut_stays_hidden_when_secrets_before_it_shortened_the_text(
        log_path: Path, layout: str) -> None:
    """Hiding a 600-character token earlier in the text shortened it, and the cut then kept text
    from past the limit: the start of a URL's password, a credential's, or of an AWS session
    token whose closing quote lay past the window (the second re-check of this session's fix)."""
    from toolbay.shortening import TEXT_CHARACTERS

    password, token, credential = "Zq7wpX9hunter2Super", "FwoGZXIvYXdzEJr" + "b" * 380 + "Q9x", "Cr3d-" + "k" * 99
    texts = {
        "a secret hidden before it": JWT_LIKE + "," + "z" * (TEXT_CHARACTERS + 240 - len(JWT_LIKE))
        + f",postgres://app:{password}@db/x",
        "a long quoted token": '{"x":"' + "c" * (TEXT_CHARACTERS - 50) + f'","aws_session_token":"{token}"}}',
        "credentials before it": ",".join([credential] * 4) + "," + "y" * (TEXT_CHARACTERS - 4 * 105 + 230)
        + "," + credential,
    }
    audit = Audit(AuditLog(log_path), hidden=lambda: [credential])
    await audit(make_call(tool(), {"text": texts[layout]}), run_handler)
    written = log_path.read_text()
    assert password[:6] not in written and token[:10] not in written and "Cr3d" not in written
    assert json.loads(written)["arguments"]["text"].endswith(f"... ({len(texts[layout])} characters)")


@pytest.mark.parametrize("field", ["tool", "reason"])
async def test_a_secret_in_a_long_called_name_or_a_quoted_value_is_hidden_before_the_cut(
        log_path: Path, field: str) -> None:
    """A called name over 256 characters was logged cut at 100 and then redacted, and so was the
    refusal quoting it, and a value an enum refused: a token across the cut was written in part
    (the third re-check of this session's audit fixes)."""
    token = "ghp_Q7ZXW9KVN3BHJ2" + "a1B2c3D4e5F6g7H8i9J0"
    name = "tool " * 18 + token + " tail" * 60
    chain = build_chain([Audit(AuditLog(log_path), hidden=lambda: ["Cr3d-Q7ZXW9KVN3BHJ2"]),
                         Authenticate(Authenticator())], run_handler)
    with pytest.raises(Unauthenticated):
        await chain(make_call(tool(name if field == "tool" else "echo"),
                              {} if field == "tool" else {"x": name}))
    written = log_path.read_text()
    assert "ghp_" not in written and "Q7ZX" not in written


def test_a_value_quoted_in_a_refusal_has_its_secrets_hidden_before_it_is_cut() -> None:
    from toolbay.chain.validate import _show
    from toolbay.errors import echoed

    for before in range(30, 70):
        text = "v" * before + " postgres://app:Q7ZXW9KVN3@db/x " + "w" * 100
        assert "Q7ZX" not in echoed(text) and "Q7ZX" not in _show(text), before


def test_text_without_spaces_keeps_its_start_where_it_is_not_ascii() -> None:
    """Japanese or Chinese text, which has no spaces, was written as its length alone."""
    from toolbay.shortening import shown_arguments

    text = "日本語の文章です。" * 600
    shown = shown_arguments({"text": text})["text"]
    assert shown.startswith("日本語の文章です。日本語") and len(shown) > 1_900
