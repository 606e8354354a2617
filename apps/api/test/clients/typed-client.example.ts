// npm install openapi-fetch && npx openapi-typescript https://stats.example.com/v1/openapi.json -o unseen-api.d.ts
import createClient from 'openapi-fetch';
import type { paths } from './unseen-api';

const api = createClient<paths>({
  baseUrl: process.env.UNSEEN_URL, // e.g. https://stats.example.com
  headers: { Authorization: `Bearer ${process.env.UNSEEN_TOKEN}` },
});

const { data, error } = await api.GET('/v1/sites/{id}/summary', {
  params: { path: { id: process.env.UNSEEN_SITE ?? '' }, query: { days: 28 } },
});
if (error) throw new Error(`${error.status}: ${error.title}`);
const { sessions, bounceRate } = data.measures;
console.log(`${data.from} to ${data.to}: ${sessions.value} sessions, bounce rate ${bounceRate.value}`);
