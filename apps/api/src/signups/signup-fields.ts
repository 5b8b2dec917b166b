import { attributionOfPage, cleanAttribution } from '@app/shared';
import type { FastifyRequest } from 'fastify';
import type { SignupDetails } from './signup-details';

/** The name of a question's field in an HTML form: answers[key]. */
export const answerField = (key: string) => `answers[${key}]`;
const ANSWER_FIELD = /^answers\[(.+)\]$/;

const bodyOf = (request: FastifyRequest): Record<string, unknown> =>
  typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};

/** Where a sign-up without attribution of its own came from: the page that posted it (its Referer) as the landing page. */
const fromReferer = (request: FastifyRequest) => attributionOfPage(request.headers.referer);

/** The JSON sign-up's answers object as sent, and its attribution object, else its Referer's. */
export function jsonDetails(request: FastifyRequest): SignupDetails {
  const body = bodyOf(request);
  return { answers: body.answers, answersFrom: 'json', attribution: cleanAttribution(body.attribution) ?? fromReferer(request) };
}

/** The form's answers[key] fields, and the attribution the hosted form carries in hidden fields (else the Referer's). */
export function formDetails(request: FastifyRequest): SignupDetails {
  const body = bodyOf(request);
  const answers = Object.entries(body).flatMap(([name, value]) => {
    const key = ANSWER_FIELD.exec(name)?.[1];
    return key === undefined ? [] : [[key, value] as const];
  });
  return {
    answers: answers.length ? Object.fromEntries(answers) : undefined,
    answersFrom: 'form',
    attribution: cleanAttribution(body) ?? fromReferer(request),
  };
}
