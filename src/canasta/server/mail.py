"""Outgoing email (password recovery) through a configured SMTP server.

``smtp://[user:password@]host[:port]`` (plain, upgraded with STARTTLS when the server offers
it), ``smtp+starttls://…`` (STARTTLS required), ``smtps://…`` (TLS from the start, port 465).
The standard library's ``smtplib`` does the work, in a thread.
"""

from __future__ import annotations

import asyncio
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import unquote, urlsplit


class MailError(Exception):
    """The SMTP URL is malformed, or the server refused or could not be reached."""


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    tls: str  # "none" (STARTTLS if offered), "starttls" (required) or "implicit"
    user: str | None = None
    password: str | None = None

    @classmethod
    def from_url(cls, url: str) -> SmtpServer:
        """Parse an ``smtp://``, ``smtp+starttls://`` or ``smtps://`` URL.

        >>> SmtpServer.from_url("smtps://me:p%40ss@mail.example")
        SmtpServer(host='mail.example', port=465, tls='implicit', user='me', password='p@ss')
        """
        parts = urlsplit(url)
        tls = {"smtp": "none", "smtp+starttls": "starttls", "smtps": "implicit"}.get(parts.scheme)
        if tls is None or not parts.hostname:
            raise MailError("the SMTP URL is smtp://, smtp+starttls:// or smtps://host[:port]")
        try:
            port = parts.port or (465 if tls == "implicit" else 587 if tls == "starttls" else 25)
        except ValueError as e:
            raise MailError("the SMTP URL has a bad port") from e
        user = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password else None
        return cls(parts.hostname, port, tls, user, password)

    def send(self, message: EmailMessage, timeout: float = 15.0) -> None:
        """Deliver one message (blocking)."""
        context = ssl.create_default_context()
        try:
            if self.tls == "implicit":
                smtp: smtplib.SMTP = smtplib.SMTP_SSL(
                    self.host, self.port, timeout=timeout, context=context
                )
            else:
                smtp = smtplib.SMTP(self.host, self.port, timeout=timeout)
            with smtp:
                smtp.ehlo()
                if self.tls == "starttls" or (self.tls == "none" and smtp.has_extn("starttls")):
                    smtp.starttls(context=context)
                    smtp.ehlo()
                if self.user:
                    smtp.login(self.user, self.password or "")
                # the one recipient as given, never the To header's parse of it
                smtp.send_message(message, to_addrs=[str(message["To"])])
        except (OSError, smtplib.SMTPException) as e:
            raise MailError(str(e)) from e


def message(sender: str, to: str, subject: str, body: str) -> EmailMessage:
    """A plain-text message to the one address ``to``; refused (``ValueError``) when the
    header would read as anything else (the envelope recipient is read back from it)."""
    m = EmailMessage()
    m["From"] = sender
    m["To"] = to
    if str(m["To"]) != to:
        raise ValueError("the address does not read back as one mailbox")
    m["Subject"] = subject
    m.set_content(body)
    return m


async def send(server: SmtpServer, mail: EmailMessage) -> None:
    await asyncio.to_thread(server.send, mail)
