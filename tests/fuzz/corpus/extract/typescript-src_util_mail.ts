// Sending mail through the local relay.
import nodemailer = require('nodemailer');

const transport = nodemailer.createTransport({ host: 'localhost', port: 25 });

export async function send(to: string, body: string): Promise<void> {
  await transport.sendMail({ to, subject: 'job report', text: body });
}
